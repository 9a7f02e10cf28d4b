package io.github.dropwizardhikari.config;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What one check of a configuration block found: errors, the values to use instead of those HikariCP cannot
 * honour, and warnings. The block itself is never changed: the values to use are read from here.
 */
public final class RuleCheck {
    /** An error in {@code field}, under the name the block used for it; {@code message} omits that name. */
    public record Error(String field, String message) {
    }

    private final Origin origin;
    private final SettingNames names;
    private final List<Error> errors = new ArrayList<>();
    private final Map<String, Adjustment> adjustments = new LinkedHashMap<>();
    private final Map<String, Object> used = new LinkedHashMap<>();
    private final Map<String, String> warnings = new LinkedHashMap<>();

    RuleCheck(Origin origin, SettingNames names) {
        this.origin = origin;
        this.names = names;
    }

    /** @return whether the block gave {@code field} under a HikariCP alias, whose values are checked strictly */
    public boolean underHikariName(String field) {
        return names.aliases(field).stream().anyMatch(origin.keys()::contains);
    }

    /** @return the name the block used for {@code field}: an alias if it used one, else the field's own */
    public String nameUsed(String field) {
        return names.aliases(field).stream().filter(origin.keys()::contains).findFirst().orElse(field);
    }

    /** Records an error in {@code field}, reported under the name the block used for it. */
    public void error(String field, String message) {
        errors.add(new Error(nameUsed(field), message));
    }

    void errorAt(String name, String message) {
        errors.add(new Error(name, message));
    }

    /** Records and returns {@code used}; adjustments of one field merge, from the first asked to the last used. */
    public <T> T adjusted(String field, Object asked, T used, String why) {
        adjustments.merge(field, new Adjustment(field, String.valueOf(asked), String.valueOf(used), why),
            (first, last) -> new Adjustment(field, first.asked(), last.used(), last.why()));
        this.used.put(field, used);
        return used;
    }

    /** @return the adjusted value of {@code field} if the check adjusted it, else {@code given} */
    @SuppressWarnings("unchecked")
    public <T> T used(String field, T given) {
        return (T) used.getOrDefault(field, given);
    }

    /**
     * Records a value used as given whose effect differs from Dropwizard's pool, to be said once: {@code message}
     * follows the setting's full path.
     */
    public void notice(String field, String message) {
        warn("notice:" + field, origin.pathOf(field) + " " + message);
    }

    /** Records a complete warning; {@code key} says which, so that it is logged once. */
    public void warn(String key, String message) {
        warnings.putIfAbsent(key, message);
    }

    public List<Error> errors() {
        return Collections.unmodifiableList(errors);
    }

    /** @return every warning, each once, keyed by what it is about: the adjustments first */
    public Map<String, String> warnings() {
        Map<String, String> all = new LinkedHashMap<>();
        adjustments.values().forEach(adjustment -> all.put("adjusted:" + adjustment.field(),
            adjustment.warning(origin.pathOf(adjustment.field()))));
        all.putAll(warnings);
        return all;
    }

    public Origin origin() {
        return origin;
    }
}
