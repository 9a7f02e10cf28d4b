package io.github.dropwizardhikari;

import io.dropwizard.configuration.ConfigurationException;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A misspelt extension type is answered as Dropwizard answers a misspelt key: the known types, the closest first,
 * never a module that does not exist. The test class path holds one extension, {@code borrow-counting}, and none of
 * the project's modules.
 */
class ExtensionTypeTest {
    @Test
    void aMisspeltTypeOfAModuleNotOnTheClassPathIsToldTheModule() {
        assertThatThrownBy(() -> FactoryFixtures.parse("invalid_extension_type_misspelt.yml"))
            .isInstanceOf(ConfigurationException.class)
            .hasMessageContaining("hikari.extensions.[0]")
            .hasMessageContaining("unknown extension type 'fair-borowing': did you mean 'fair-borrowing' (module "
                + "io.github.dropwizard-hikari:dropwizard-hikari-fair-borrowing)? The known types, closest first: "
                + "fair-borrowing, fault-handling, ")
            .hasMessageContaining("; on the class path: borrow-counting")
            .hasMessageNotContaining("dropwizard-hikari-fair-borowing");
    }

    @Test
    void aMisspeltTypeOnTheClassPathIsToldItsName() {
        assertThatThrownBy(() -> FactoryFixtures.parse("invalid_extension_type_misspelt_on_class_path.yml"))
            .isInstanceOf(ConfigurationException.class)
            .hasMessageContaining("unknown extension type 'borow-counting': did you mean 'borrow-counting'? The known"
                + " types, closest first: borrow-counting, ")
            .hasMessageNotContaining("dropwizard-hikari-borow-counting")
            .hasMessageNotContaining("dropwizard-hikari-borrow-counting");
    }

    @Test
    void theKnownTypesAreListedEachOnceClosestFirst() {
        assertThatThrownBy(() -> FactoryFixtures.parse("invalid_extension_type_misspelt.yml"))
            .hasMessageContaining("closest first: fair-borrowing, fault-handling, borrow-counting, admission, "
                + "hdr-metrics, operations, holders, credential-files; on the class path: borrow-counting");
    }

    @Test
    void distanceCountsInsertionsDeletionsAndReplacements() {
        assertThat(ExtensionDeserializer.distance("fair-borowing", "fair-borrowing")).isEqualTo(1);
        assertThat(ExtensionDeserializer.distance("kitten", "sitting")).isEqualTo(3);
        assertThat(ExtensionDeserializer.distance("", "holders")).isEqualTo(7);
        assertThat(ExtensionDeserializer.distance("holders", "")).isEqualTo(7);
        assertThat(ExtensionDeserializer.distance("holders", "holders")).isZero();
        assertThat(ExtensionDeserializer.distance("flaw", "lawn")).isEqualTo(2);
    }

    // the core names the project's modules without depending on them: the list must follow the build
    @Test
    void thePublishedTypesAreTheTypesOfTheProjectsExtensionModules() throws IOException {
        Path root = Path.of("").toAbsolutePath().getParent();
        Matcher module = Pattern.compile("<module>(dropwizard-hikari-[a-z-]+)</module>")
            .matcher(Files.readString(root.resolve("pom.xml")));
        Set<String> types = new HashSet<>();
        while (module.find()) {
            if (!module.group(1).equals("dropwizard-hikari-example")) {
                types.add(typeOf(root.resolve(module.group(1))));
            }
        }
        assertThat(types).hasSize(7).isEqualTo(ExtensionDeserializer.PUBLISHED_TYPES);
    }

    // the type the module's main extension (the first listed for the ServiceLoader) declares
    private static String typeOf(Path module) throws IOException {
        String extension = Files.readAllLines(module.resolve(
            "src/main/resources/META-INF/services/io.github.dropwizardhikari.PoolExtension")).get(0).strip();
        Path source = module.resolve("src/main/java/" + extension.replace('.', '/') + ".java");
        Matcher name = Pattern.compile("@JsonTypeName\\(\"([^\"]+)\"\\)").matcher(Files.readString(source));
        assertThat(name.find()).as("a @JsonTypeName in " + source).isTrue();
        String type = name.group(1);
        assertThat(module.getFileName().toString()).as("the module of the type " + type)
            .isEqualTo("dropwizard-hikari-" + type);
        return type;
    }
}
