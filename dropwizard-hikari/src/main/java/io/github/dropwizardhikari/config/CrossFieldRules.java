package io.github.dropwizardhikari.config;

/**
 * A configuration block whose rules {@link SettingsCheck} runs: rules on one field sit on the field
 * ({@link HikariFloor}, Bean Validation constraints), rules between fields here.
 */
public interface CrossFieldRules {
    /** Reports errors and adjusted values to {@code check}; reads the block and writes nothing. */
    void checkCrossFieldRules(RuleCheck check);

    /** @return where the block was parsed from, {@link Origin#JAVA} for a block built in Java */
    Origin origin();

    /** Called once by {@link OriginRecordingDeserializer} when the block has been parsed. */
    void parsedFrom(Origin origin);

    /** @return the warnings the block has logged, so each is logged once however often it is validated */
    LoggedOnce loggedOnce();
}
