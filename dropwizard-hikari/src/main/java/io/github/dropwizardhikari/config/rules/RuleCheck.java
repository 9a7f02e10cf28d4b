package io.github.dropwizardhikari.config.rules;

import io.github.dropwizardhikari.config.binding.Origin;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What one check of a configuration block found: errors, and values replaced with safe ones.
 */
public final class RuleCheck {
    /**
     * An error in one setting.
     *
     * @param field   the setting, under the name the block used for it
     * @param message what is wrong, without the setting's name
     */
    public record Error(String field, String message) {
    }

    private final Origin origin;
    private final SettingNames names;
    private final List<Error> errors = new ArrayList<>();
    private final Map<String, Adjustment> adjustments = new LinkedHashMap<>();
    private final Map<String, String> notices = new LinkedHashMap<>();

    RuleCheck(Origin origin, SettingNames names) {
        this.origin = origin;
        this.names = names;
    }

    /**
     * @return whether the block gave {@code field} under one of HikariCP's alias names, whose values are checked
     * strictly
     */
    public boolean underHikariName(String field) {
        return names.aliases(field).stream().anyMatch(origin.keys()::contains);
    }

    /**
     * @return the name the block used for {@code field}: an alias if it used one, else the field's own name
     */
    public String nameUsed(String field) {
        return names.aliases(field).stream().filter(origin.keys()::contains).findFirst().orElse(field);
    }

    /**
     * Records an error in {@code field}, reported under the name the block used for it.
     */
    public void error(String field, String message) {
        errors.add(new Error(nameUsed(field), message));
    }

    void errorAt(String name, String message) {
        errors.add(new Error(name, message));
    }

    /**
     * Records that {@code field} asked for {@code asked} and gets {@code used}; several adjustments of one field
     * make one, from the first value asked to the last value used.
     *
     * @return {@code used}
     */
    public <T> T adjusted(String field, Object asked, T used, String why) {
        adjustments.merge(field, new Adjustment(field, String.valueOf(asked), String.valueOf(used), why),
            (first, last) -> new Adjustment(field, first.asked(), last.used(), last.why()));
        return used;
    }

    /**
     * Records a value used as given whose effect differs from Dropwizard's pool, to be said once: {@code message}
     * follows the setting's full path.
     */
    public void notice(String field, String message) {
        notices.putIfAbsent(field, message);
    }

    /**
     * @return whether the block states {@code field}, under its own name or an alias
     */
    public boolean states(String field) {
        return origin.keys().contains(field) || underHikariName(field);
    }

    public List<Error> errors() {
        return Collections.unmodifiableList(errors);
    }

    public List<Adjustment> adjustments() {
        return List.copyOf(adjustments.values());
    }

    public Map<String, String> notices() {
        return Collections.unmodifiableMap(notices);
    }

    public Origin origin() {
        return origin;
    }

    Set<String> keys() {
        return origin.keys();
    }
}
