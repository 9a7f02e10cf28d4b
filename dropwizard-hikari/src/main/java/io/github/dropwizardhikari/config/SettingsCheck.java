package io.github.dropwizardhikari.config;

import com.fasterxml.jackson.annotation.JsonAlias;
import io.dropwizard.util.Duration;

import java.lang.reflect.Field;
import java.util.List;

/**
 * Runs every rule of a configuration block: one name per setting, each {@link HikariFloor}, then the block's
 * {@link CrossFieldRules}, which read the values raised to their floors from the check.
 */
public final class SettingsCheck {
    private SettingsCheck() {
    }

    public static RuleCheck run(CrossFieldRules block) {
        SettingNames names = SettingNames.of(block.getClass());
        RuleCheck check = new RuleCheck(block.origin(), names);
        checkOneNamePerSetting(names, check);
        checkFloors(block, check);
        block.checkCrossFieldRules(check);
        return check;
    }

    private static void checkOneNamePerSetting(SettingNames names, RuleCheck check) {
        names.allNames().forEach((field, all) -> {
            List<String> given = all.stream().filter(check.origin().keys()::contains).toList();
            if (given.size() > 1) {
                check.errorAt(field, "is given twice, as " + String.join(" and as ", given)
                    + ": these name the same setting; keep one");
            }
        });
    }

    private static void checkFloors(CrossFieldRules block, RuleCheck check) {
        for (Class<?> type = block.getClass(); type != Object.class; type = type.getSuperclass()) {
            for (Field field : type.getDeclaredFields()) {
                HikariFloor floor = field.getAnnotation(HikariFloor.class);
                if (floor != null) {
                    checkFloor(block, field, floor, check);
                }
            }
        }
    }

    private static void checkFloor(Object block, Field field, HikariFloor floor, RuleCheck check) {
        Duration value = (Duration) read(block, field);
        if (value == null) {
            return;
        }
        String name = field.getName();
        Duration lowest = HikariFloors.readable(floor.millis());
        boolean dropwizardName = field.isAnnotationPresent(JsonAlias.class) && !check.underHikariName(name);
        if (dropwizardName) {
            if (value.toNanoseconds() <= 0) {
                // Dropwizard's own rule for its duration settings
                check.error(name, "must be greater than 0 MILLISECONDS");
            } else if (value.toMilliseconds() < floor.millis()) {
                check.adjusted(name, value, lowest, floor.why());
            }
            return;
        }
        boolean zeroAllowed = !floor.zeroMeans().isEmpty();
        long millis = value.toMilliseconds();
        if (millis < floor.millis() && !(zeroAllowed && value.toNanoseconds() == 0)) {
            check.error(name, "must be " + (zeroAllowed ? "0 (" + floor.zeroMeans() + ") or " : "")
                + "at least " + lowest + ": " + floor.why());
        }
    }

    private static Object read(Object block, Field field) {
        try {
            field.setAccessible(true);
            return field.get(block);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException("cannot read " + field, e);
        }
    }
}
