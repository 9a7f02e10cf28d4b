package io.github.dropwizardhikari.faulthandling;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.zaxxer.hikari.HikariPoolMXBean;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import java.sql.SQLException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

class FailoverEvictionTest {
    @BeforeAll
    static void saysItProvokesFaults() {
        System.out.println("This suite provokes, on purpose, failed connections and read-only refusals."
            + " WARN and ERROR lines in this log are expected.");
    }

    private final AtomicLong now = new AtomicLong(TimeUnit.SECONDS.toNanos(100));
    private final CountingPool pool = new CountingPool();
    private final Logger logger = (Logger) LoggerFactory.getLogger(FailoverEviction.class);
    private final ListAppender<ILoggingEvent> warnings = new ListAppender<>();

    @BeforeEach
    void listen() {
        warnings.start();
        logger.addAppender(warnings);
    }

    @AfterEach
    void stopListening() {
        logger.detachAppender(warnings);
    }

    private FailoverEviction eviction(boolean readOnlyPool) {
        FailoverEviction eviction = new FailoverEviction("orders", readOnlyPool, 1_000, now::get);
        eviction.attach(pool);
        return eviction;
    }

    private static SQLException error(String sqlState) {
        return new SQLException("test", sqlState);
    }

    @Test
    void oneEvictionAndOneWarningPerEvent() {
        FailoverEviction eviction = eviction(false);
        for (int i = 0; i < 8; i++) {
            eviction.connectionLost(error("57P01"));
            now.addAndGet(TimeUnit.MILLISECONDS.toNanos(100));
        }
        assertThat(pool.softEvictions).isEqualTo(1);
        assertThat(warnings.list).hasSize(1);
        assertThat(warnings.list.get(0).getFormattedMessage()).startsWith("Pool orders: a second connection failed "
            + "within 1000 ms of another (SQLState 57P01").contains("evicted all 4 connections");

        now.addAndGet(TimeUnit.MILLISECONDS.toNanos(300));
        assertThat(eviction.readOnlyRejected(error("25006"))).isTrue();
        assertThat(pool.softEvictions).isEqualTo(2);
        assertThat(warnings.list).hasSize(2);
        // the first loss evicted only its own connection; the second evicted the pool; six more were its event
        assertThat(warnings.list.get(1).getFormattedMessage())
            .contains("refused a write as read-only").contains("(6 such error(s) after the previous eviction");
    }

    /** One session ended (pg_terminate_backend, an idle timeout): only its own connection goes, nothing is logged. */
    @Test
    void oneLostConnectionIsNotAFailover() {
        FailoverEviction eviction = eviction(false);
        eviction.connectionLost(error("57P01"));
        assertThat(pool.softEvictions).isZero();

        // another session ends much later: still not a failover
        now.addAndGet(TimeUnit.SECONDS.toNanos(30));
        eviction.connectionLost(error("57P05"));
        assertThat(pool.softEvictions).isZero();
        assertThat(eviction.evictions()).isZero();
        assertThat(warnings.list).isEmpty();

        // a second connection lost within the window is
        now.addAndGet(TimeUnit.MILLISECONDS.toNanos(999));
        eviction.connectionLost(error("08006"));
        assertThat(pool.softEvictions).isEqualTo(1);
    }

    @Test
    void aReadOnlyPoolIgnoresReadOnlyRefusals() {
        FailoverEviction eviction = eviction(true);
        assertThat(eviction.readOnlyRejected(error("25006"))).isFalse();
        assertThat(pool.softEvictions).isZero();
        eviction.connectionLost(error("08006"));
        eviction.connectionLost(error("08006"));
        assertThat(pool.softEvictions).isEqualTo(1);
    }

    @Test
    void nothingHappensBeforeThePoolRuns() {
        FailoverEviction eviction = new FailoverEviction("orders", false, 1_000, now::get);
        eviction.connectionLost(error("08006"));
        eviction.connectionLost(error("08006"));
        assertThat(eviction.evictions()).isZero();
    }

    private static final class CountingPool implements HikariPoolMXBean {
        private int softEvictions;

        @Override
        public int getIdleConnections() {
            return 1;
        }

        @Override
        public int getActiveConnections() {
            return 3;
        }

        @Override
        public int getTotalConnections() {
            return 4;
        }

        @Override
        public int getThreadsAwaitingConnection() {
            return 0;
        }

        @Override
        public void softEvictConnections() {
            softEvictions++;
        }

        @Override
        public void suspendPool() {
            throw new UnsupportedOperationException();
        }

        @Override
        public void resumePool() {
            throw new UnsupportedOperationException();
        }
    }
}
