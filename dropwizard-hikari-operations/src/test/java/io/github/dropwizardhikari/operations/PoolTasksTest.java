package io.github.dropwizardhikari.operations;

import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.HikariPoolMXBean;
import io.dropwizard.testing.ResourceHelpers;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static io.github.dropwizardhikari.operations.PoolTasksApp.POOLS;
import static org.assertj.core.api.Assertions.assertThat;

/** The pool tasks on a running application's admin port, over HTTP, on three H2 pools. */
@ExtendWith(DropwizardExtensionsSupport.class)
class PoolTasksTest {
    @BeforeAll
    static void saysItProvokesFaults() {
        System.out.println("This suite provokes, on purpose, resizes and suspensions through the admin tasks."
            + " WARN and ERROR lines in this log are expected.");
    }

    static final DropwizardAppExtension<PoolTasksApp.Config> APP = new DropwizardAppExtension<>(
        PoolTasksApp.class, ResourceHelpers.resourceFilePath("pool-tasks-app.yml"));

    private final AdminRequests requests = new AdminRequests();

    @AfterEach
    void restore() throws Exception {
        HikariDataSource alpha = running("alpha");
        if (!alpha.isRunning()) {
            alpha.getHikariPoolMXBean().resumePool();
        }
        alpha.setMaximumPoolSize(4);
        alpha.setMinimumIdle(4);
    }

    private HttpResponse<String> post(String pathAndQuery) throws Exception {
        return requests.post(APP.getAdminPort(), pathAndQuery);
    }

    private static HikariDataSource running(String name) throws SQLException {
        return POOLS.get(name).unwrap(HikariDataSource.class);
    }

    private static int sessionId(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement();
             ResultSet result = statement.executeQuery("SELECT SESSION_ID()")) {
            result.next();
            return result.getInt(1);
        }
    }

    @Test
    void withSeveralPoolsAndNoPoolParameterTheAnswerNamesThePools() throws Exception {
        HttpResponse<String> response = post("pool-status");

        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(response.body()).contains("several pools (alpha, beta, lazy)", "pool=<name>");
    }

    @Test
    void anUnknownPoolIsA400ListingTheNames() throws Exception {
        HttpResponse<String> response = post("pool-evict?pool=gamma");

        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(response.body()).contains("no pool named 'gamma'", "alpha, beta, lazy");
    }

    /** beta's block does not list pool-resize: the task does not reach its pool. */
    @Test
    void aTaskItsBlockDoesNotListDoesNotReachThePool() throws Exception {
        HttpResponse<String> resize = post("pool-resize?pool=beta&maxSize=3");

        assertThat(resize.statusCode()).isEqualTo(400);
        assertThat(resize.body()).contains("no pool named 'beta'; the pools are: alpha, lazy",
            "pool-resize is on for the pools whose block lists it in the operations extension's changeTasks");
        assertThat(running("beta").getMaximumPoolSize()).isEqualTo(2);
    }

    @Test
    void statusPrintsStateCountsAndSettingsButNoSecret() throws Exception {
        try (Connection held = POOLS.get("alpha").getConnection()) {
            HttpResponse<String> alpha = post("pool-status?pool=alpha");

            assertThat(alpha.statusCode()).isEqualTo(200);
            assertThat(alpha.body()).contains("pool: alpha\n", "state: running\n", "1 in use", "maxSize: 4\n",
                "minSize: 4\n", "maxWaitForConnection: 2000 milliseconds\n", "allowPoolSuspension: true\n",
                "user: sa\n", "password: <masked>\n");
            assertThat(alpha.body()).doesNotContain("alpha-Pa55word");
        }
        HttpResponse<String> beta = post("pool-status?pool=beta");
        assertThat(beta.statusCode()).isEqualTo(200);
        assertThat(beta.body()).contains("PASSWORD=<masked>", "password: none\n").doesNotContain("beta-Pa55word");

        HttpResponse<String> lazy = post("pool-status?pool=lazy");
        assertThat(lazy.statusCode()).isEqualTo(200);
        assertThat(lazy.body()).contains("state: not started", "maxSize: 1\n");
        assertThat(POOLS.get("lazy").isRunning()).as("status does not start a pool").isFalse();
    }

    @Test
    void resizeRefusesBadValuesByNameAndChangesNothing() throws Exception {
        HikariDataSource alpha = running("alpha");
        List<String> refused = List.of("pool-resize?pool=alpha&maxSize=abc", "pool-resize?pool=alpha&maxSize=0",
            "pool-resize?pool=alpha&minSize=-1", "pool-resize?pool=alpha&maxSize=6&minSize=7",
            "pool-resize?pool=alpha&minSize=5", "pool-resize?pool=alpha&maxSize=3",
            "pool-resize?pool=alpha&maxsize=6", "pool-resize?pool=alpha", "pool-resize?pool=alpha&maxSize=5&maxSize=6");
        List<String> bodies = new ArrayList<>();
        for (String request : refused) {
            HttpResponse<String> response = post(request);
            assertThat(response.statusCode()).as(request).isEqualTo(400);
            bodies.add(response.body());
        }

        assertThat(bodies.get(0)).startsWith("maxSize must be a whole number; got 'abc'");
        assertThat(bodies.get(1)).startsWith("maxSize must be at least 1");
        assertThat(bodies.get(2)).startsWith("minSize must be at least 0");
        assertThat(bodies.get(3)).startsWith("minSize: minSize (7) must be less than or equal to maxSize (6)");
        assertThat(bodies.get(4)).startsWith("minSize: minSize (5) must be less than or equal to maxSize (4)");
        assertThat(bodies.get(5)).startsWith("maxSize: minSize (4) must be less than or equal to maxSize (3)")
            .contains("give minSize too");
        assertThat(bodies.get(6)).contains("no parameter 'maxsize'", "maxSize, minSize, pool");
        assertThat(bodies.get(7)).contains("needs maxSize, minSize or both");
        assertThat(bodies.get(8)).contains("maxSize was given 2 times");
        assertThat(alpha.getMaximumPoolSize()).isEqualTo(4);
        assertThat(alpha.getMinimumIdle()).isEqualTo(4);
    }

    @Test
    void resizeChangesTheRunningPool() throws Exception {
        HikariDataSource alpha = running("alpha");

        HttpResponse<String> grown = post("pool-resize?pool=alpha&maxSize=6&minSize=2");

        assertThat(grown.statusCode()).isEqualTo(200);
        assertThat(grown.body()).contains("maxSize 4 -> 6, minSize 4 -> 2");
        assertThat(alpha.getMaximumPoolSize()).isEqualTo(6);
        assertThat(alpha.getMinimumIdle()).isEqualTo(2);
        List<Connection> six = new ArrayList<>();
        try {
            for (int i = 0; i < 6; i++) {
                six.add(alpha.getConnection());
            }
            assertThat(alpha.getHikariPoolMXBean().getActiveConnections()).isEqualTo(6);
        } finally {
            for (Connection connection : six) {
                connection.close();
            }
        }

        HttpResponse<String> shrunk = post("pool-resize?pool=alpha&maxSize=1&minSize=1");
        assertThat(shrunk.statusCode()).isEqualTo(200);
        assertThat(alpha.getMaximumPoolSize()).isEqualTo(1);
        assertThat(alpha.getMinimumIdle()).isEqualTo(1);
    }

    @Test
    void suspendNeedsAllowPoolSuspensionAndSaysSo() throws Exception {
        HttpResponse<String> suspend = post("pool-suspend?pool=beta");
        HttpResponse<String> resume = post("pool-resume?pool=beta");

        assertThat(suspend.statusCode()).isEqualTo(409);
        assertThat(suspend.body()).contains("allowPoolSuspension: false", "allowPoolSuspension: true");
        assertThat(resume.statusCode()).isEqualTo(409);
        assertThat(running("beta").isRunning()).isTrue();
    }

    @Test
    void suspendHoldsBorrowersUntilResume() throws Exception {
        HikariDataSource alpha = running("alpha");

        HttpResponse<String> suspend = post("pool-suspend?pool=alpha");
        assertThat(suspend.statusCode()).isEqualTo(200);
        assertThat(suspend.body()).contains("pool alpha: suspended");
        assertThat(post("pool-status?pool=alpha").body()).contains("state: suspended");

        CompletableFuture<Integer> borrower = CompletableFuture.supplyAsync(() -> {
            try (Connection connection = alpha.getConnection()) {
                return sessionId(connection);
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        });
        HikariPoolMXBean bean = alpha.getHikariPoolMXBean();
        // the borrower waits at the suspension, beyond maxWaitForConnection (2 s)
        TimeUnit.MILLISECONDS.sleep(2500);
        assertThat(borrower).isNotDone();

        HttpResponse<String> resume = post("pool-resume?pool=alpha");
        assertThat(resume.statusCode()).isEqualTo(200);
        assertThat(resume.body()).contains("pool alpha: resumed");
        assertThat(borrower.get(10, TimeUnit.SECONDS)).isPositive();
        assertThat(bean.getActiveConnections()).isZero();
        assertThat(post("pool-resume?pool=alpha").body()).contains("not suspended");
    }

    @Test
    void evictReplacesEveryConnectionAndLetsBorrowedOnesFinish() throws Exception {
        HikariDataSource alpha = running("alpha");
        Set<Integer> before = new HashSet<>();
        List<Connection> all = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            all.add(alpha.getConnection());
        }
        for (Connection connection : all) {
            before.add(sessionId(connection));
        }
        Connection held = all.remove(0);
        for (Connection connection : all) {
            connection.close();
        }

        HttpResponse<String> evict = post("pool-evict?pool=alpha");

        assertThat(evict.statusCode()).isEqualTo(200);
        assertThat(evict.body()).contains("3 idle closed now, 1 in use retire when returned");
        // the borrowed connection still works until it is returned
        assertThat(before).contains(sessionId(held));
        held.close();
        Set<Integer> after = new HashSet<>();
        List<Connection> fresh = new ArrayList<>();
        try {
            for (int i = 0; i < 4; i++) {
                fresh.add(alpha.getConnection());
            }
            for (Connection connection : fresh) {
                after.add(sessionId(connection));
            }
        } finally {
            for (Connection connection : fresh) {
                connection.close();
            }
        }
        assertThat(after).hasSize(4).doesNotContainAnyElementsOf(before);
    }

    @Test
    void tasksOnAPoolThatHasNotStartedSayWhy() throws Exception {
        for (String task : List.of("pool-evict", "pool-suspend", "pool-resize?maxSize=2&pool=lazy")) {
            String request = task.contains("?") ? task : task + "?pool=lazy";
            HttpResponse<String> response = post(request);
            assertThat(response.statusCode()).as(request).isEqualTo(409);
            assertThat(response.body()).contains("pool lazy has not started yet");
        }
        assertThat(POOLS.get("lazy").isRunning()).isFalse();
    }

    /**
     * Dropwizard 5 keeps one task per name and replaces an earlier one silently: each block registering its own
     * tasks would leave only the last block's pools reachable. The blocks share one set instead.
     */
    @Test
    void threeBlocksNamingTheExtensionShareOneSetOfTasksThatReachesEveryPool() throws Exception {
        assertThat(APP.getEnvironment().getAdminContext().getServletHandler().getFilters())
            .filteredOn(filter -> filter.getName().equals(PoolTask.FILTER_NAME))
            .hasSize(1);
        for (String pool : List.of("alpha", "beta", "lazy")) {
            HttpResponse<String> status = post("pool-status?pool=" + pool);
            assertThat(status.statusCode()).as(pool).isEqualTo(200);
            assertThat(status.body()).contains("pool: " + pool + "\n");
        }
    }
}
