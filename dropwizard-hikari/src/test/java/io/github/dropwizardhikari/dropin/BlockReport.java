package io.github.dropwizardhikari.dropin;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

/** The counts of a generated run, printed to the test output and written to {@code target/}. */
final class BlockReport {
    private final long seed;
    private int blocks;
    private int acceptedByDropwizard;
    private int acceptedWithAdjustments;
    private int refusedByBoth;
    private int defaultCaused;
    private int defaultCausedOnlyBelowStatedInitialSize;
    private int poolsStarted;
    private int isolationNoneRefusedByH2;
    private int acceptedByHikari;
    private final Map<String, Integer> adjustedWarnings = new TreeMap<>();
    private final Map<String, String> sampleWarnings = new TreeMap<>();
    private final Map<String, Integer> tomcatOnlyWarnings = new TreeMap<>();
    private final Map<String, Integer> warningsOnUnchangedValues = new TreeMap<>();
    private final Map<String, Integer> stated = new TreeMap<>();

    BlockReport(long seed) {
        this.seed = seed;
    }

    void block(GeneratedBlock block) {
        blocks++;
        DropwizardFields.all().stream().filter(block::states).forEach(field -> stated.merge(field, 1, Integer::sum));
    }

    void countAcceptedByDropwizard() {
        acceptedByDropwizard++;
    }

    void countAcceptedWithAdjustments() {
        acceptedWithAdjustments++;
    }

    void countRefusedByBoth() {
        refusedByBoth++;
    }

    void countDefaultCaused() {
        defaultCaused++;
    }

    void countDefaultCausedOnlyBelowStatedInitialSize() {
        defaultCausedOnlyBelowStatedInitialSize++;
    }

    void countPoolStarted() {
        poolsStarted++;
    }

    void countIsolationNoneRefusedByH2() {
        isolationNoneRefusedByH2++;
    }

    void countAcceptedByHikari() {
        acceptedByHikari++;
    }

    void adjustedWarning(String field, String message) {
        adjustedWarnings.merge(field, 1, Integer::sum);
        sampleWarnings.putIfAbsent(field, message);
    }

    void tomcatOnlyWarning(String field, String message) {
        tomcatOnlyWarnings.merge(field, 1, Integer::sum);
        sampleWarnings.putIfAbsent(field, message);
    }

    void warningOnUnchangedValue(String field) {
        warningsOnUnchangedValues.merge(field, 1, Integer::sum);
    }

    int blocks() {
        return blocks;
    }

    int acceptedByDropwizard() {
        return acceptedByDropwizard;
    }

    int acceptedByHikari() {
        return acceptedByHikari;
    }

    int acceptedWithAdjustments() {
        return acceptedWithAdjustments;
    }

    int refusedByBoth() {
        return refusedByBoth;
    }

    int defaultCaused() {
        return defaultCaused;
    }

    int poolsStarted() {
        return poolsStarted;
    }

    int isolationNoneRefusedByH2() {
        return isolationNoneRefusedByH2;
    }

    Map<String, Integer> stated() {
        return stated;
    }

    String text() {
        StringBuilder samples = new StringBuilder();
        sampleWarnings.forEach((field, message) -> samples.append("    ").append(message).append('\n'));
        return "Generated database: blocks (seed " + seed + ", -Ddropin.seed=" + seed + " repeats this run)\n"
            + "  blocks:                                   " + blocks + "\n"
            + "  accepted by Dropwizard, accepted by hikari: " + acceptedByDropwizard + "\n"
            + "  refused by Dropwizard only because of its size defaults, accepted by hikari: " + defaultCaused
            + "\n"
            + "    of which minSize is left out and a stated initialSize is below hikari's maxSize: "
            + defaultCausedOnlyBelowStatedInitialSize + "\n"
            + "  refused by Dropwizard, refused by hikari: " + refusedByBoth + "\n"
            + "  accepted by hikari:                       " + acceptedByHikari + "\n"
            + "    of which with a value adjusted (WARN):  " + acceptedWithAdjustments + "\n"
            + "  pools started on H2 that served SELECT 1: " + poolsStarted + "\n"
            + "  accepted with defaultTransactionIsolation NONE, which H2 refuses at start (as with Dropwizard's "
            + "pool): " + isolationNoneRefusedByH2 + "\n"
            + "  adjusted-value WARNs by field:            " + adjustedWarnings + "\n"
            + "  Tomcat-only WARNs by field:               " + tomcatOnlyWarnings + "\n"
            + "  WARNs on a value used as asked:           " + warningsOnUnchangedValues + "\n"
            + "  blocks stating each field:                " + stated + "\n"
            + "  one WARN of each kind, as logged:\n" + samples;
    }

    void write(Path file) throws IOException {
        Files.createDirectories(file.getParent());
        Files.writeString(file, text());
    }
}
