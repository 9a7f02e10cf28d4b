package io.github.dropwizardhikari;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Optional;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.core.domain.properties.HasName.Predicates.name;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

/** The core uses Dropwizard and HikariCP's public API only, and publishes a short list of types. */
class CoreLayeringTest {
    private static final String CORE_PACKAGE = "io.github.dropwizardhikari";
    private static final JavaClasses CORE = new ClassFileImporter()
        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .importPackages(CORE_PACKAGE);

    // users write the first three; extensions build on the rest
    private static final List<String> PUBLISHED = List.of("HikariDataSourceFactory", "TomcatOnlySettings",
        "HikariBundle", "ResolvedSettings", "ManagedHikariDataSource", "PoolExtension", "PoolHooks",
        "PoolHooks$Borrow");

    @Test
    void dependsOnDropwizardAndHikariCpsPublicApiOnly() {
        classes().should().onlyDependOnClassesThat(resideInAnyPackage("java..", "javax..", "jakarta..",
                "com.codahale.metrics..", "com.fasterxml.jackson..", "io.dropwizard..", "org.slf4j..", "org.jspecify..",
                "com.zaxxer.hikari", "com.zaxxer.hikari.metrics..", CORE_PACKAGE)
                .or(name("com.zaxxer.hikari.util.Credentials")))
            .check(CORE);
    }

    @Test
    void hasNoPackageCycles() {
        // one package today: the rule holds the packages a later change may add
        slices().matching(CORE_PACKAGE + ".(**)").should().beFreeOfCycles().allowEmptyShould(true).check(CORE);
    }

    @Test
    void publishesOnlyItsApi() {
        List<JavaClass> api = CORE.stream().filter(CoreLayeringTest::isApi).toList();

        assertThat(api).extracting(type -> type.getName().substring(CORE_PACKAGE.length() + 1))
            .containsExactlyInAnyOrderElementsOf(PUBLISHED);
        assertThat(api).filteredOn(JavaClass::isTopLevelClass).hasSizeLessThanOrEqualTo(10);
    }

    // reachable by name from another package: public, and so is every type it is declared in
    private static boolean isApi(JavaClass type) {
        for (Optional<JavaClass> scope = Optional.of(type); scope.isPresent(); scope = scope.get().getEnclosingClass()) {
            if (!scope.get().getModifiers().contains(JavaModifier.PUBLIC)) {
                return false;
            }
        }
        return true;
    }
}
