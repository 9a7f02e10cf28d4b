package io.github.dropwizardhikari.fairborrowing;

import com.codahale.metrics.Metric;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.Timer;
import io.github.dropwizardhikari.ManagedHikariDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static io.github.dropwizardhikari.fairborrowing.FairPools.assertServesExactly;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A borrower that has just been given its place at the gate, and has not yet gone on to HikariCP, holds that place
 * while its thread is held there: nothing but its connection's return gives it back.
 */
class PlaceJustGivenTest {
    private final CountDownLatch queuedTimeRecorded = new CountDownLatch(1);
    private final CountDownLatch goOn = new CountDownLatch(1);
    private final FairPools pools = new FairPools(new HoldingRegistry());

    @AfterEach
    void stopAll() {
        goOn.countDown();
        pools.close();
    }

    @Test
    void aPlaceGivenToAQueuedBorrowerIsNotLostBeforeItReachesHikari() throws Exception {
        ManagedHikariDataSource dataSource = pools.build("just-given", 1, 5_000);
        BorrowGate gate = pools.gate("just-given");
        Connection first = dataSource.getConnection();
        CompletableFuture<Boolean> queued = CompletableFuture.supplyAsync(() -> {
            try (Connection connection = dataSource.getConnection()) {
                return connection.isValid(1);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        FairPools.await("the second borrower queues", () -> gate.waiting() == 1);
        first.close();
        // the queued borrower has its place and is held where the gate records its time in the queue
        assertThat(queuedTimeRecorded.await(20, TimeUnit.SECONDS)).isTrue();
        TimeUnit.MILLISECONDS.sleep(500);
        assertThat(gate.freePlaces()).as("free places while the borrower holds the only one").isZero();

        goOn.countDown();
        assertThat(queued.get(20, TimeUnit.SECONDS)).isTrue();
        assertThat(gate.freePlaces()).isEqualTo(1);
        assertServesExactly(dataSource, gate, 1);
    }

    /** Holds the first borrower whose time in the queue is recorded until the test lets it go on. */
    private final class HoldingRegistry extends MetricRegistry {
        @Override
        public <T extends Metric> T register(String name, T metric) {
            if (name.endsWith(".GateWait")) {
                return super.register(name, metric(new Timer() {
                    @Override
                    public void update(long duration, TimeUnit unit) {
                        if (queuedTimeRecorded.getCount() > 0) {
                            queuedTimeRecorded.countDown();
                            try {
                                goOn.await(30, TimeUnit.SECONDS);
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                        }
                        super.update(duration, unit);
                    }
                }));
            }
            return super.register(name, metric);
        }

        @SuppressWarnings("unchecked")
        private <T extends Metric> T metric(Timer timer) {
            return (T) timer;
        }
    }
}
