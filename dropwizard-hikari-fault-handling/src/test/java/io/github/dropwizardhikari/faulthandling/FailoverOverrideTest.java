package io.github.dropwizardhikari.faulthandling;

import com.zaxxer.hikari.HikariPoolMXBean;
import com.zaxxer.hikari.SQLExceptionOverride;
import com.zaxxer.hikari.SQLExceptionOverride.Override;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.lang.reflect.Proxy;
import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/** The fault handling's override with {@code failoverEviction: true}: what it tells {@link FailoverEviction}. */
class FailoverOverrideTest {
    @BeforeAll
    static void saysItProvokesFaults() {
        System.out.println("This suite provokes, on purpose, failed connections and read-only refusals."
            + " WARN and ERROR lines in this log are expected.");
    }

    private static final String POSTGRESQL = "jdbc:postgresql://db/orders";
    private static final String MARIADB = "jdbc:mariadb://db/orders";
    private final AtomicInteger softEvictions = new AtomicInteger();

    private ConnectionLossOverride override(String url, SQLExceptionOverride previous, boolean readOnlyPool) {
        FailoverEviction eviction = new FailoverEviction("orders", readOnlyPool, 1_000);
        eviction.attach((HikariPoolMXBean) Proxy.newProxyInstance(getClass().getClassLoader(),
            new Class<?>[]{HikariPoolMXBean.class}, (proxy, method, args) -> {
                if (method.getName().equals("softEvictConnections")) {
                    softEvictions.incrementAndGet();
                }
                return method.getReturnType() == int.class ? 1 : null;
            }));
        return new ConnectionLossOverride(previous, ConnectionErrors.of(url, null, null), List.of(), eviction);
    }

    private static SQLExceptionOverride verdict(Override always) {
        return new SQLExceptionOverride() {
            @java.lang.Override
            public Override adjudicate(SQLException e) {
                return always;
            }
        };
    }

    @ParameterizedTest(name = "{0} / {1}")
    @CsvSource({
        "25006, 0, cannot execute INSERT in a read-only transaction",
        "25006, 1792, Cannot execute statement in a READ ONLY transaction",
        "HY000, 1836, Running in read-only mode",
        "HY000, 1290, The MariaDB server is running with the --read-only option so it cannot execute this statement",
    })
    void aReadOnlyRefusalEvictsThePool(String sqlState, int code, String message) {
        ConnectionLossOverride override = override(code == 0 ? POSTGRESQL : MARIADB, null, false);
        assertThat(override.adjudicate(new SQLException(message, sqlState, code))).isEqualTo(Override.MUST_EVICT);
        assertThat(softEvictions).hasValue(1);
    }

    @Test
    void aReadOnlyPoolKeepsItsConnectionOnARefusal() {
        ConnectionLossOverride override = override(POSTGRESQL, null, true);
        assertThat(override.adjudicate(new SQLException("read-only", "25006"))).isEqualTo(Override.CONTINUE_EVICT);
        assertThat(softEvictions).hasValue(0);
    }

    @Test
    void aMariaDbRefusalForAnotherOptionIsNoFailover() {
        ConnectionLossOverride override = override(MARIADB, null, false);
        SQLException secureFilePriv = new SQLException("The MariaDB server is running with the --secure-file-priv "
            + "option so it cannot execute this statement", "HY000", 1290);
        assertThat(override.adjudicate(secureFilePriv)).isEqualTo(Override.CONTINUE_EVICT);
        assertThat(softEvictions).hasValue(0);
    }

    /** One session's death evicts its own connection; a second within the window is a failover. */
    @Test
    void oneLostSessionIsNotAFailoverTwoAre() {
        ConnectionLossOverride override = override(POSTGRESQL, null, false);
        assertThat(override.adjudicate(new SQLException("terminated", "57P01"))).isEqualTo(Override.MUST_EVICT);
        assertThat(softEvictions).hasValue(0);
        assertThat(override.adjudicate(new SQLException("terminated", "57P01"))).isEqualTo(Override.MUST_EVICT);
        assertThat(softEvictions).hasValue(1);
    }

    @Test
    void theOverrideBeforeItWinsWithDoNotEvict() {
        ConnectionLossOverride override = override(POSTGRESQL, verdict(Override.DO_NOT_EVICT), false);
        assertThat(override.adjudicate(new SQLException("read-only", "25006"))).isEqualTo(Override.DO_NOT_EVICT);
        assertThat(override.adjudicate(new SQLException("terminated", "57P01"))).isEqualTo(Override.DO_NOT_EVICT);
        assertThat(override.adjudicate(new SQLException("terminated", "57P01"))).isEqualTo(Override.DO_NOT_EVICT);
        assertThat(softEvictions).hasValue(0);
    }

    @Test
    void ordinaryErrorsKeepTheVerdictBeforeIt() {
        ConnectionLossOverride override = override(POSTGRESQL, null, false);
        assertThat(override.adjudicate(new SQLException("syntax", "42601"))).isEqualTo(Override.CONTINUE_EVICT);
        assertThat(override(POSTGRESQL, verdict(Override.MUST_EVICT), false)
            .adjudicate(new SQLException("syntax", "42601"))).isEqualTo(Override.MUST_EVICT);
        assertThat(softEvictions).hasValue(0);
    }
}
