package io.github.dropwizardhikari;

import com.codahale.metrics.MetricRegistry;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** What a report on a pool may print of its settings: the masks of the factory's {@code toString()}. */
class MaskedSettingsTest {
    @Test
    void theUrlAndTheDriverPropertiesAreMaskedAsTheFactoryPrintsThem() {
        HikariDataSourceFactory factory = new HikariDataSourceFactory();
        factory.setUrl("jdbc:h2:mem:masked;PASSWORD=url-Pa55word");
        factory.setProperties(Map.of("sslpassword", "property-Pa55word", "applicationName", "orders",
            "replica", "jdbc:h2:mem:other;password=nested-Pa55word"));
        ManagedHikariDataSource pool = (ManagedHikariDataSource) factory.build(new MetricRegistry(), "masked");
        try {
            assertThat(pool.maskedUrl()).isEqualTo("jdbc:h2:mem:masked;PASSWORD=<masked>");
            assertThat(pool.maskedProperties()).containsExactly(Map.entry("applicationName", "orders"),
                Map.entry("replica", "jdbc:h2:mem:other;password=<masked>"), Map.entry("sslpassword", "<masked>"));
            assertThat(factory.toString()).contains(pool.maskedUrl());
            // nothing was started to answer
            assertThat(pool.isRunning()).isFalse();
        } finally {
            pool.stop();
        }
    }
}
