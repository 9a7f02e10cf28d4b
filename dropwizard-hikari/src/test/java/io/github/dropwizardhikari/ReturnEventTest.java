package io.github.dropwizardhikari;

import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.health.HealthCheckRegistry;
import io.dropwizard.db.ManagedDataSource;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link PoolHooks#returned}, on HikariCP over H2: each borrow's return reaches every extension once, with the object
 * its borrow had, on the thread that closed it, whatever the extensions' order; without a listener the connection is
 * HikariCP's own, unwrapped.
 */
class ReturnEventTest {
    private final MetricRegistry metrics = new MetricRegistry();

    @Test
    void aReturnOnAnotherThreadIsPairedWithItsBorrowAndToldOnTheClosingThread() throws Exception {
        List<String> events = Collections.synchronizedList(new ArrayList<>());
        List<Connection> borrowed = Collections.synchronizedList(new ArrayList<>());
        List<Connection> returned = Collections.synchronizedList(new ArrayList<>());
        PoolExtension listening = (config, registry) -> new PoolHooks() {
            @Override
            public void borrowed(Connection connection) {
                borrowed.add(connection);
            }

            @Override
            public void returned(Connection connection) {
                returned.add(connection);
                events.add("returned on " + Thread.currentThread().getName());
            }
        };
        ManagedDataSource pool = pool("across", List.of(listening));
        try {
            Connection first = pool.getConnection();
            Connection second = pool.getConnection();
            assertThat(returned).isEmpty();
            String closer = CompletableFuture.supplyAsync(() -> {
                try {
                    second.close();
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
                return Thread.currentThread().getName();
            }).join();
            assertThat(returned).containsExactly(borrowed.get(1));
            first.close();
            assertThat(returned).containsExactly(borrowed.get(1), borrowed.get(0));
            assertThat(events).containsExactly("returned on " + closer,
                "returned on " + Thread.currentThread().getName());
            assertThat(closer).isNotEqualTo(Thread.currentThread().getName());
        } finally {
            pool.stop();
        }
    }

    @Test
    void eachBorrowIsReturnedOnceHoweverOftenItIsClosedOrAborted() throws Exception {
        List<Connection> returned = Collections.synchronizedList(new ArrayList<>());
        ManagedDataSource pool = pool("once", List.of(recordingReturns(returned)));
        try {
            Connection closedTwice = pool.getConnection();
            closedTwice.close();
            closedTwice.close();
            assertThat(returned).hasSize(1);
            Connection aborted = pool.getConnection();
            aborted.abort(Runnable::run);
            aborted.close();
            assertThat(returned).hasSize(2).doesNotHaveDuplicates();
            // a call after the return still reaches HikariCP's connection, which refuses it
            assertThat(closedTwice.isClosed()).isTrue();
            assertThatThrownBy(closedTwice::createStatement).isInstanceOf(SQLException.class);
        } finally {
            pool.stop();
        }
    }

    @Test
    void theConnectionLentToAListenersPoolBehavesAsHikariCPsOwn() throws Exception {
        ManagedDataSource pool = pool("behaves", List.of(recordingReturns(new ArrayList<>())));
        try (Connection connection = pool.getConnection()) {
            assertThat(Proxy.isProxyClass(connection.getClass())).isTrue();
            assertThat(connection).isEqualTo(connection).hasSameHashCodeAs(connection);
            assertThat(connection.isWrapperFor(org.h2.jdbc.JdbcConnection.class)).isTrue();
            assertThat(connection.unwrap(org.h2.jdbc.JdbcConnection.class)).isNotNull();
            try (var statement = connection.createStatement(); var result = statement.executeQuery("SELECT 1")) {
                assertThat(result.next()).isTrue();
            }
            assertThatThrownBy(() -> connection.prepareStatement("NOT SQL")).isInstanceOf(SQLException.class);
        } finally {
            pool.stop();
        }
    }

    @Test
    void withoutAListenerTheBorrowerGetsHikariCPsConnectionUnwrapped() throws Exception {
        List<Connection> borrowed = new ArrayList<>();
        PoolExtension borrowsOnly = (config, registry) -> new PoolHooks() {
            @Override
            public void borrowed(Connection connection) {
                borrowed.add(connection);
            }
        };
        for (List<PoolExtension> extensions : List.of(List.<PoolExtension>of(), List.of(borrowsOnly))) {
            ManagedDataSource pool = pool("unwrapped" + extensions.size(), extensions);
            try (Connection connection = pool.getConnection()) {
                assertThat(Proxy.isProxyClass(connection.getClass())).isFalse();
                assertThat(connection.getClass().getPackageName()).isEqualTo("com.zaxxer.hikari.pool");
            } finally {
                pool.stop();
            }
        }
        assertThat(borrowed).hasSize(1);
        // the borrowed hook was given the very connection the borrower got
        assertThat(Proxy.isProxyClass(borrowed.get(0).getClass())).isFalse();
    }

    /** Listed before or after an extension that does not listen, a listener hears the same returns. */
    @Test
    void everyListenerHearsEachReturnWhateverItsPlaceInTheList() throws Exception {
        List<List<String>> heard = new ArrayList<>();
        for (boolean listenerFirst : new boolean[] {true, false}) {
            List<String> events = Collections.synchronizedList(new ArrayList<>());
            PoolExtension first = (config, registry) -> listener("a", events);
            PoolExtension quiet = (config, registry) -> new PoolHooks() { };
            PoolExtension second = (config, registry) -> listener("b", events);
            ManagedDataSource pool = pool("order" + listenerFirst,
                listenerFirst ? List.of(first, quiet, second) : List.of(quiet, second, first));
            try {
                for (int i = 0; i < 3; i++) {
                    pool.getConnection().close();
                }
            } finally {
                pool.stop();
            }
            heard.add(events.stream().sorted().toList());
        }
        assertThat(heard.get(0)).hasSize(12).isEqualTo(heard.get(1));
        assertThat(heard.get(0)).filteredOn(event -> event.startsWith("a returned")).hasSize(3);
    }

    /** An extension whose return hook fails is logged; the borrower's close() and the other extensions go on. */
    @Test
    void aFailingReturnHookNeitherFailsTheCloseNorSilencesTheOthers() throws Exception {
        List<Connection> returned = new ArrayList<>();
        PoolExtension failing = (config, registry) -> new PoolHooks() {
            @Override
            public void returned(Connection connection) {
                throw new IllegalStateException("broken extension");
            }
        };
        ManagedDataSource pool = pool("failing", List.of(failing, recordingReturns(returned)));
        try {
            Connection connection = pool.getConnection();
            connection.close();
            assertThat(connection.isClosed()).isTrue();
            assertThat(returned).hasSize(1);
        } finally {
            pool.stop();
        }
    }

    private ManagedDataSource pool(String name, List<PoolExtension> extensions) {
        HikariDataSourceFactory factory = new HikariDataSourceFactory();
        factory.setUrl("jdbc:h2:mem:" + name);
        factory.setMaxSize(2);
        factory.setExtensions(extensions);
        BundleInitialization.bind(factory, metrics, new HealthCheckRegistry());
        return factory.build(metrics, name);
    }

    private static PoolExtension recordingReturns(List<Connection> returned) {
        return (config, registry) -> new PoolHooks() {
            @Override
            public void returned(Connection connection) {
                returned.add(connection);
            }
        };
    }

    private static PoolHooks listener(String name, List<String> events) {
        List<Connection> out = Collections.synchronizedList(new ArrayList<>());
        return new PoolHooks() {
            @Override
            public void borrowed(Connection connection) {
                out.add(connection);
                events.add(name + " borrowed");
            }

            @Override
            public void returned(Connection connection) {
                events.add(name + " returned " + out.remove(connection));
            }
        };
    }
}
