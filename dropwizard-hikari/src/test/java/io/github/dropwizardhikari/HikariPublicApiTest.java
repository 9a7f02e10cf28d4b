package io.github.dropwizardhikari;

import com.zaxxer.hikari.pool.HikariPool;
import com.zaxxer.hikari.util.ConcurrentBag;
import com.zaxxer.hikari.util.Credentials;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The library's compiled classes use HikariCP's public API only: the root package and {@code metrics}, plus
 * {@code util.Credentials}, which HikariCP's credentials SPI returns. HikariCP's {@code pool} and {@code util}
 * packages, its thread names and the stack frames of its threads change at any release without notice.
 */
class HikariPublicApiTest {
    private static final Pattern INTERNAL_TYPE = Pattern.compile("com[/.]zaxxer[/.]hikari[/.](pool|util)[/.][\\w$]+");
    private static final Pattern CREDENTIALS = Pattern.compile("com[/.]zaxxer[/.]hikari[/.]util[/.]Credentials");
    private static final List<String> STACK_READERS = List.of("getStackTrace", "getAllStackTraces");
    private static final String STACK_WALKER = "java/lang/StackWalker";
    // HikariCP 7.1.0 names its threads "<pool>:connection-adder", "<pool>:connection-closer", "<pool>:housekeeper"
    private static final List<String> HIKARI_THREADS = List.of("connection-adder", "connection-closer", "housekeeper");

    @Test
    void mainClassesReferToNoInternalHikariCpType() {
        assertThat(violations(mainClasses(), HikariPublicApiTest::internalTypes))
            .as("main classes that refer to HikariCP's pool or util package (only util.Credentials is public API)")
            .isEmpty();
    }

    @Test
    void mainClassesReadNoStackTrace() {
        assertThat(violations(mainClasses(), HikariPublicApiTest::stackReads))
            .as("main classes that read stack traces").isEmpty();
    }

    @Test
    void mainClassesNameNoHikariCpThread() {
        assertThat(violations(mainClasses(), HikariPublicApiTest::threadNames))
            .as("main classes with a string constant naming one of HikariCP's threads").isEmpty();
    }

    /** The scan itself, on a class that does everything forbidden and one thing allowed. */
    @Test
    void theScanFindsEachForbiddenReferenceAndAllowsCredentials() throws IOException {
        ClassFileConstants offender = read(HikariPublicApiTest.class, "HikariPublicApiTest$Offender.class");

        assertThat(internalTypes(offender)).contains("com/zaxxer/hikari/pool/HikariPool",
            "com/zaxxer/hikari/util/ConcurrentBag", "com.zaxxer.hikari.util.FastList")
            .noneMatch(name -> name.contains("Credentials"));
        assertThat(stackReads(offender)).containsExactlyInAnyOrder("java/lang/Thread.getStackTrace",
            "java/lang/Thread.getAllStackTraces", "java/lang/Exception.getStackTrace", STACK_WALKER);
        assertThat(threadNames(offender)).containsExactly("housekeeper");
    }

    @Test
    void theScanReadsEveryMainClass() {
        assertThat(mainClasses().keySet()).contains("io/github/dropwizardhikari/HikariBundle.class",
            "io/github/dropwizardhikari/SettingsCheck.class",
            "io/github/dropwizardhikari/ManagedHikariDataSource.class").hasSizeGreaterThan(20);
    }

    private static List<String> internalTypes(ClassFileConstants constants) {
        List<String> found = new ArrayList<>();
        Stream.concat(constants.texts().stream(), constants.strings().stream()).forEach(text -> {
            Matcher type = INTERNAL_TYPE.matcher(text);
            while (type.find()) {
                if (!CREDENTIALS.matcher(type.group()).matches()) {
                    found.add(type.group());
                }
            }
        });
        return found.stream().distinct().toList();
    }

    private static List<String> stackReads(ClassFileConstants constants) {
        List<String> found = new ArrayList<>();
        for (String method : constants.methods()) {
            if (STACK_READERS.contains(method.substring(method.lastIndexOf('.') + 1))) {
                found.add(method);
            }
        }
        if (constants.texts().contains(STACK_WALKER)) {
            found.add(STACK_WALKER);
        }
        return found.stream().distinct().toList();
    }

    private static List<String> threadNames(ClassFileConstants constants) {
        return HIKARI_THREADS.stream()
            .filter(thread -> constants.strings().stream().anyMatch(string -> string.contains(thread)))
            .toList();
    }

    private interface Rule {
        List<String> violations(ClassFileConstants constants);
    }

    private static Map<String, List<String>> violations(Map<String, ClassFileConstants> classes, Rule rule) {
        Map<String, List<String>> violations = new TreeMap<>();
        classes.forEach((name, constants) -> {
            List<String> found = rule.violations(constants);
            if (!found.isEmpty()) {
                violations.put(name, found);
            }
        });
        return violations;
    }

    /** @return every class compiled from {@code src/main/java}, by its path below the output folder */
    private static Map<String, ClassFileConstants> mainClasses() {
        Path root = mainOutput();
        Map<String, ClassFileConstants> classes = new TreeMap<>();
        try (Stream<Path> files = Files.walk(root)) {
            for (Path file : (Iterable<Path>) files.filter(path -> path.toString().endsWith(".class"))::iterator) {
                String name = root.relativize(file).toString().replace('\\', '/');
                classes.put(name, ClassFileConstants.read(Files.readAllBytes(file)));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return classes;
    }

    private static Path mainOutput() {
        try {
            Path root = Path.of(HikariBundle.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            assertThat(root).as("the main classes' folder (target/classes)").isDirectory();
            return root;
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private static ClassFileConstants read(Class<?> neighbour, String resource) throws IOException {
        try (InputStream in = Objects.requireNonNull(neighbour.getResourceAsStream(resource), resource)) {
            return ClassFileConstants.read(in.readAllBytes());
        }
    }

    /** Everything the rules forbid, and the one HikariCP class outside the root packages that they allow. */
    @SuppressWarnings("unused")
    private static final class Offender {
        static String all(HikariPool pool) throws ClassNotFoundException {
            StackTraceElement[] mine = Thread.currentThread().getStackTrace();
            StackTraceElement[] thrown = new Exception().getStackTrace();
            int threads = Thread.getAllStackTraces().size();
            Class<?> bag = ConcurrentBag.class;
            Class<?> list = Class.forName("com.zaxxer.hikari.util.FastList");
            Credentials allowed = Credentials.of("user", "password");
            return "pool-1:housekeeper " + mine.length + thrown.length + threads + bag + list + allowed
                + StackWalker.getInstance().walk(Stream::count);
        }
    }
}
