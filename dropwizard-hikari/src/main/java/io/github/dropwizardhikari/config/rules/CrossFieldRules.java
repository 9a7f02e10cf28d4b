package io.github.dropwizardhikari.config.rules;

/**
 * A configuration block with rules that involve more than one of its fields. Rules on one field sit on the field
 * ({@link HikariFloor}, Bean Validation constraints).
 */
public interface CrossFieldRules {
    /**
     * Checks the rules, reporting errors to {@code check} and replacing each value HikariCP cannot honour with
     * the nearest safe one (also reported to {@code check}). Running it again changes nothing more.
     */
    void checkCrossFieldRules(RuleCheck check);
}
