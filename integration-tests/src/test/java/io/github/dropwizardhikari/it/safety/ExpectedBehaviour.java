package io.github.dropwizardhikari.it.safety;

import io.github.dropwizardhikari.it.pools.PoolConfiguration;
import io.github.dropwizardhikari.it.safety.Observation.Outcome;

import java.util.EnumSet;
import java.util.Set;

import static io.github.dropwizardhikari.it.safety.Guarantee.CLEAR_WARNINGS;
import static io.github.dropwizardhikari.it.safety.Guarantee.CLOSE_OPEN_STATEMENTS;
import static io.github.dropwizardhikari.it.safety.Guarantee.RESET_AUTO_COMMIT;
import static io.github.dropwizardhikari.it.safety.Guarantee.RESET_CATALOG;
import static io.github.dropwizardhikari.it.safety.Guarantee.RESET_ISOLATION;
import static io.github.dropwizardhikari.it.safety.Guarantee.RESET_NETWORK_TIMEOUT;
import static io.github.dropwizardhikari.it.safety.Guarantee.RESET_READ_ONLY;
import static io.github.dropwizardhikari.it.safety.Guarantee.RESPONSE_TIME;
import static io.github.dropwizardhikari.it.safety.Guarantee.ROLLBACK_ON_RETURN;

/**
 * What each pool does, per database, as observed with tomcat-jdbc 11.0.18, PostgreSQL JDBC 42.7.14 and MariaDB
 * Connector/J 3.5.11. HikariCP keeps every guarantee. Tomcat's {@code rollbackOnReturn} acts only when
 * {@code defaultAutoCommit} is false, so even tomcat-safe lets uncommitted work through to the next borrower of an
 * auto-commit pool; no Tomcat setting resets a network timeout; and Tomcat opens connections on the caller's
 * thread, so the caller waits for the driver's login timeout instead of the pool's.
 */
enum ExpectedBehaviour {
    POSTGRES(
        EnumSet.of(RESET_CATALOG, CLEAR_WARNINGS),
        EnumSet.of(RESPONSE_TIME, RESET_READ_ONLY, RESET_AUTO_COMMIT, RESET_ISOLATION, RESET_NETWORK_TIMEOUT,
            ROLLBACK_ON_RETURN, CLOSE_OPEN_STATEMENTS),
        EnumSet.of(RESPONSE_TIME, RESET_NETWORK_TIMEOUT, ROLLBACK_ON_RETURN)),
    MARIADB(
        EnumSet.noneOf(Guarantee.class),
        EnumSet.of(RESPONSE_TIME, RESET_CATALOG, RESET_READ_ONLY, RESET_AUTO_COMMIT, RESET_ISOLATION,
            RESET_NETWORK_TIMEOUT, ROLLBACK_ON_RETURN, CLOSE_OPEN_STATEMENTS),
        EnumSet.of(RESPONSE_TIME, RESET_NETWORK_TIMEOUT, ROLLBACK_ON_RETURN));

    private final Set<Guarantee> notApplicable;
    private final Set<Guarantee> brokenByTomcatDefault;
    private final Set<Guarantee> brokenByTomcatSafe;

    ExpectedBehaviour(Set<Guarantee> notApplicable, Set<Guarantee> brokenByTomcatDefault,
                      Set<Guarantee> brokenByTomcatSafe) {
        this.notApplicable = notApplicable;
        this.brokenByTomcatDefault = brokenByTomcatDefault;
        this.brokenByTomcatSafe = brokenByTomcatSafe;
    }

    Outcome get(Guarantee guarantee, PoolConfiguration pool) {
        if (notApplicable.contains(guarantee)) {
            return Outcome.NOT_APPLICABLE;
        }
        Set<Guarantee> broken = switch (pool) {
            case HIKARI, HIKARI_FAULT_HANDLING -> Set.of();
            case TOMCAT_DEFAULT -> brokenByTomcatDefault;
            case TOMCAT_SAFE -> brokenByTomcatSafe;
        };
        return broken.contains(guarantee) ? Outcome.BROKEN : Outcome.KEPT;
    }
}
