package io.github.dropwizardhikari;

import org.junit.jupiter.api.Test;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.atomic.AtomicLongFieldUpdater;
import java.util.concurrent.atomic.AtomicReferenceFieldUpdater;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The library keeps no state for the whole JVM: every static field of its main classes is a constant of an
 * immutable type, or is listed below with the reason it may stay. Two applications in one JVM (two tests, two
 * environments) then share nothing but constants.
 */
class NoGlobalStateTest {
    /** {@code class#field}, and why it is allowed although it can change. */
    private static final Map<String, String> ALLOWED = Map.ofEntries(
        Map.entry("io.github.dropwizardhikari.fairness.FairBorrowGate#QUEUED_NANOS", "a ThreadLocal: each thread "
            + "reads only what it wrote itself, while it borrows"));

    /** Types whose instances never change once built, or hold no state of their own. */
    private static final Set<Class<?>> IMMUTABLE = Set.of(String.class, Boolean.class, Character.class, Byte.class,
        Short.class, Integer.class, Long.class, Float.class, Double.class, Class.class, Pattern.class,
        java.time.Duration.class, io.dropwizard.util.Duration.class);
    private static final Set<Class<?>> STATELESS = Set.of(org.slf4j.Logger.class, MethodHandle.class,
        VarHandle.class, AtomicIntegerFieldUpdater.class, AtomicLongFieldUpdater.class,
        AtomicReferenceFieldUpdater.class);
    private static final String LIBRARY = "io.github.dropwizardhikari.";

    @Test
    void everyStaticFieldIsAnImmutableConstantOrAllowedWithAReason() throws Exception {
        List<String> mutable = new ArrayList<>();
        for (Class<?> type : mainClasses()) {
            for (Field field : type.getDeclaredFields()) {
                if (!Modifier.isStatic(field.getModifiers()) || field.isSynthetic()) {
                    continue;
                }
                String name = type.getName() + "#" + field.getName();
                String problem = problem(field);
                if (problem != null && !ALLOWED.containsKey(name)) {
                    mutable.add(name + ": " + problem);
                }
            }
        }

        assertThat(mutable).as("static fields that can hold state for the whole JVM").isEmpty();
    }

    @SuppressWarnings("unused")
    static final class Examples {
        static int counter;
        static final Map<String, String> CACHE = new java.util.HashMap<>();
        static final List<String> VIEW = Collections.unmodifiableList(new ArrayList<>());
        static final ThreadLocal<Long> PER_THREAD = new ThreadLocal<>();
        static final java.util.concurrent.atomic.AtomicLong COUNT = new java.util.concurrent.atomic.AtomicLong();
        static final List<Object> HOLDS_A_CACHE = List.of(new java.util.HashMap<>());
        static final long LIMIT = 5;
        static final Set<String> NAMES = Set.of("a", "b");
        static final Map<String, List<Integer>> TABLE = Map.of("a", List.of(1));
        static final Pattern DIGITS = Pattern.compile("\\d+");
        static final org.slf4j.Logger LOGGER = org.slf4j.LoggerFactory.getLogger(Examples.class);
        static final AtomicLongFieldUpdater<Examples> UPDATER =
            AtomicLongFieldUpdater.newUpdater(Examples.class, "value");
        static final java.util.concurrent.TimeUnit UNIT = java.util.concurrent.TimeUnit.SECONDS;
        static final BuiltPools BRIDGE = new BuiltPools();

        volatile long value;
    }

    @Test
    void theScanTellsConstantsFromState() throws Exception {
        for (String name : List.of("counter", "CACHE", "VIEW", "PER_THREAD", "COUNT", "HOLDS_A_CACHE",
            "BRIDGE")) {
            assertThat(problem(Examples.class.getDeclaredField(name))).as(name).isNotNull();
        }
        for (String name : List.of("LIMIT", "NAMES", "TABLE", "DIGITS", "LOGGER", "UPDATER", "UNIT")) {
            assertThat(problem(Examples.class.getDeclaredField(name))).as(name).isNull();
        }
    }

    @Test
    void theScanFindsTheLibrarysClasses() throws Exception {
        assertThat(mainClasses()).contains(HikariBundle.class, BuiltPools.class, HikariDataSourceFactory.class)
            .hasSizeGreaterThan(20);
    }

    /** @return why the field may hold changing state, or null for a constant of an immutable type */
    private static String problem(Field field) throws IllegalAccessException {
        if (!Modifier.isFinal(field.getModifiers())) {
            return "not final";
        }
        if (field.getType().isPrimitive()) {
            return null;
        }
        field.setAccessible(true);
        Object value = field.get(null);
        return immutable(value, Collections.newSetFromMap(new IdentityHashMap<>())) ? null
            : "holds a " + value.getClass().getName() + " that can change";
    }

    /**
     * Whether nothing reachable from {@code value} can change: a known immutable or stateless type, a collection
     * from {@code Set.of}, {@code List.of} or {@code Map.of} (a {@code Collections.unmodifiable} view is not
     * enough) of such values, or one of the library's own classes whose fields are all final and hold such values.
     */
    private static boolean immutable(Object value, Set<Object> seen) throws IllegalAccessException {
        if (value == null || !seen.add(value)) {
            return true;
        }
        Class<?> type = value.getClass();
        if (type.getName().startsWith(LIBRARY)) {
            return fieldsImmutable(value, seen);
        }
        if (IMMUTABLE.contains(type) || value instanceof Enum<?>
            || STATELESS.stream().anyMatch(stateless -> stateless.isInstance(value))) {
            return true;
        }
        if (!(value instanceof Collection<?> || value instanceof Map<?, ?>)
            || !type.getName().startsWith("java.util.ImmutableCollections$")) {
            return false;
        }
        Collection<?> elements = value instanceof Map<?, ?> map ? entries(map) : (Collection<?>) value;
        for (Object element : elements) {
            if (!immutable(element, seen)) {
                return false;
            }
        }
        return true;
    }

    private static boolean fieldsImmutable(Object value, Set<Object> seen) throws IllegalAccessException {
        Class<?> level = value.getClass();
        for (; level.getName().startsWith(LIBRARY); level = level.getSuperclass()) {
            for (Field field : level.getDeclaredFields()) {
                if (Modifier.isStatic(field.getModifiers())) {
                    continue;
                }
                if (!Modifier.isFinal(field.getModifiers())) {
                    return false;
                }
                field.setAccessible(true);
                if (!field.getType().isPrimitive() && !immutable(field.get(value), seen)) {
                    return false;
                }
            }
        }
        // a superclass outside the library (Semaphore, say) may hold state the scan cannot read
        return level == Object.class || level == Enum.class || level == Record.class;
    }

    private static List<Object> entries(Map<?, ?> map) {
        List<Object> entries = new ArrayList<>();
        map.forEach((key, entry) -> {
            entries.add(key);
            entries.add(entry);
        });
        return entries;
    }

    private static List<Class<?>> mainClasses() throws Exception {
        Path root = Path.of(HikariBundle.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        List<Class<?>> classes = new ArrayList<>();
        try (Stream<Path> files = Files.walk(root)) {
            for (Path file : files.filter(path -> path.toString().endsWith(".class")).toList()) {
                String relative = root.relativize(file).toString();
                String name = relative.substring(0, relative.length() - ".class".length())
                    .replace(file.getFileSystem().getSeparator(), ".");
                if (!name.endsWith("package-info") && !name.endsWith("module-info")) {
                    classes.add(Class.forName(name, true, NoGlobalStateTest.class.getClassLoader()));
                }
            }
        }
        return classes;
    }
}
