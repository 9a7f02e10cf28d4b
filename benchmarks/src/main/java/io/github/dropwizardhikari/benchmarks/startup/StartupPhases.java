package io.github.dropwizardhikari.benchmarks.startup;

import com.codahale.metrics.MetricRegistry;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dropwizard.configuration.FileConfigurationSourceProvider;
import io.dropwizard.configuration.YamlConfigurationFactory;
import io.dropwizard.core.Configuration;
import io.dropwizard.db.ManagedDataSource;
import io.dropwizard.db.PooledDataSourceFactory;
import io.dropwizard.jackson.Jackson;
import io.dropwizard.jersey.validation.Validators;
import jakarta.validation.Validator;

import java.io.File;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;

/**
 * Times, in a fresh JVM, the two phases of a start-up in which the variants differ, after warming what they share:
 * reading and validating the configuration (the work of {@code check}), and a pool's first start up to its first
 * connection and its stop (the work {@code server} and {@code db status} do once). What both variants do alike
 * (Dropwizard's object mapper and validator, the JDBC driver's first connection) runs first, untimed.
 *
 * <pre>java -cp benchmarks.jar io.github.dropwizardhikari.benchmarks.startup.StartupPhases tomcat|hikari config.yml [user]</pre>
 *
 * <p>Prints one line: the wall milliseconds of each phase, and the CPU milliseconds of this thread and of the whole
 * process in it.</p>
 */
public final class StartupPhases {
    private StartupPhases() {
    }

    public static void main(String[] args) throws Exception {
        boolean hikari = switch (args[0]) {
            case "hikari" -> true;
            case "tomcat" -> false;
            default -> throw new IllegalArgumentException("tomcat or hikari, not " + args[0]);
        };
        File config = new File(args[1]);
        String user = args.length > 2 ? args[2] : "postgres";
        ObjectMapper mapper = Jackson.newObjectMapper();
        Validator validator = Validators.newValidator();
        Path serverOnly = Files.createTempFile("server-only", ".yml");
        Files.writeString(serverOnly, "server:\n  type: default\n");
        build(mapper, validator, Configuration.class, serverOnly.toFile());
        Files.delete(serverOnly);
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();

        long wall = System.nanoTime();
        long cpu = threads.getCurrentThreadCpuTime();
        long process = processCpu();
        PooledDataSourceFactory factory = hikari
                ? build(mapper, validator, HikariPeopleConfiguration.class, config).getDataSourceFactory()
                : build(mapper, validator, TomcatPeopleConfiguration.class, config).getDataSourceFactory();
        long configWall = System.nanoTime() - wall;
        long configCpu = threads.getCurrentThreadCpuTime() - cpu;
        long configProcess = processCpu() - process;

        try (Connection warm = DriverManager.getConnection(factory.getUrl(), user, "")) {
            warm.isValid(5);
        }
        wall = System.nanoTime();
        cpu = threads.getCurrentThreadCpuTime();
        process = processCpu();
        ManagedDataSource pool = factory.build(new MetricRegistry(), "hibernate");
        pool.start();
        try (Connection connection = pool.getConnection()) {
            connection.isValid(5);
        }
        long firstWall = System.nanoTime() - wall;
        pool.stop();
        long poolWall = System.nanoTime() - wall;
        long poolCpu = threads.getCurrentThreadCpuTime() - cpu;
        long poolProcess = processCpu() - process;
        System.out.printf("%s config %d ms (CPU %d ms, process %d ms) pool-first-connection %d ms pool-start-stop %d ms "
                        + "(CPU %d ms, process %d ms)%n", args[0], configWall / 1_000_000, configCpu / 1_000_000,
                configProcess / 1_000_000, firstWall / 1_000_000, poolWall / 1_000_000, poolCpu / 1_000_000,
                poolProcess / 1_000_000);
    }

    /** Every thread's CPU time, the JIT compiler's and the pool's own threads included. */
    private static long processCpu() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    private static <T extends Configuration> T build(ObjectMapper mapper, Validator validator, Class<T> type,
                                                     File file) throws Exception {
        return new YamlConfigurationFactory<>(type, validator, mapper, "dw")
                .build(new FileConfigurationSourceProvider(), file.getPath());
    }
}
