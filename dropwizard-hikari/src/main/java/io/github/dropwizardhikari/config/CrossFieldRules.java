package io.github.dropwizardhikari.config;

/**
 * A configuration block whose rules {@link SettingsCheck} runs: rules on one field sit on the field
 * ({@link HikariFloor}, Bean Validation constraints), rules between fields here.
 */
public interface CrossFieldRules {
    /**
     * Checks the rules between fields: errors, and values HikariCP cannot honour with the nearest safe one to use
     * instead, all reported to {@code check}. It reads the block and writes nothing.
     */
    void checkCrossFieldRules(RuleCheck check);

    /**
     * @return where the block was parsed from, {@link Origin#JAVA} for a block built in Java
     */
    Origin origin();

    /**
     * Called once by {@link OriginRecordingDeserializer} when the block has been parsed.
     */
    void parsedFrom(Origin origin);

    /**
     * @return the block's memory of the warnings it has logged, so that each is logged once however often the
     * block is validated or built
     */
    LoggedOnce loggedOnce();
}
