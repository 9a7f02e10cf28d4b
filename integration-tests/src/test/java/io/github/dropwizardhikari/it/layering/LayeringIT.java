package io.github.dropwizardhikari.it.layering;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.List;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The layering of the whole project, read from the compiled main classes of every module: the core knows no
 * extension; an extension uses the core only through its root package (the extension point, the factory, the
 * bundle, the managed data source) and no other extension; everything uses HikariCP's public API only; and no
 * module's packages form a cycle.
 */
class LayeringIT {
    private static final String ROOT = "io.github.dropwizardhikari";
    /** Each extension module's package. */
    private static final List<String> EXTENSIONS = List.of(ROOT + ".fairborrowing..", ROOT + ".faulthandling..",
        ROOT + ".operations..", ROOT + ".admission..", ROOT + ".hdrmetrics..",
        ROOT + ".credentialfiles..", ROOT + ".holders..");

    private static JavaClasses classes;

    @BeforeAll
    static void importMainClasses() {
        classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .withImportOption(location -> !location.contains("/integration-tests/")
                && !location.contains("dropwizard-hikari-example") && !location.contains("/benchmarks/"))
            .importPackages(ROOT);
    }

    @Test
    void everyModuleIsRead() {
        for (String module : List.of("", ".fairborrowing", ".faulthandling", ".operations",
            ".admission", ".hdrmetrics", ".credentialfiles", ".holders")) {
            assertThat(classes.stream().map(type -> type.getPackageName()))
                .as("classes of %s%s", ROOT, module).contains(ROOT + module);
        }
    }

    @Test
    void theCoreKnowsNoExtension() {
        ArchRule rule = noClasses().that().resideInAnyPackage(corePackages())
            .should().dependOnClassesThat().resideInAnyPackage(EXTENSIONS.toArray(String[]::new))
            .orShould().dependOnClassesThat().resideInAnyPackage("net.bytebuddy..", "org.HdrHistogram..");
        rule.check(classes);
    }

    @Test
    void anExtensionUsesTheCoreOnlyThroughItsRootPackageAndNoOtherExtension() {
        for (String extension : EXTENSIONS) {
            List<String> others = EXTENSIONS.stream().filter(other -> !other.equals(extension)).toList();
            noClasses().that().resideInAPackage(extension)
                .should().dependOnClassesThat(coreInternals())
                .orShould().dependOnClassesThat().resideInAnyPackage(others.toArray(String[]::new))
                .allowEmptyShould(true)
                .check(classes);
        }
    }

    @Test
    void hikariCpIsUsedThroughItsPublicApiOnly() {
        noClasses().that().resideInAPackage(ROOT + "..")
            .should().dependOnClassesThat(DescribedPredicate.describe(
                "are HikariCP internals (its pool and util packages, but util.Credentials, which its "
                    + "credentials SPI returns, and util.DriverDataSource, public final with the constructor its own "
                    + "pool calls)",
                type -> (type.getPackageName().startsWith("com.zaxxer.hikari.pool")
                    || type.getPackageName().startsWith("com.zaxxer.hikari.util"))
                    && !type.getName().equals("com.zaxxer.hikari.util.Credentials")
                    && !type.getName().equals("com.zaxxer.hikari.util.DriverDataSource")))
            .check(classes);
    }

    @Test
    void noModuleHasAPackageCycle() {
        slices().matching(ROOT + ".(**)").should().beFreeOfCycles().check(classes);
    }

    private static String[] corePackages() {
        return new String[] {ROOT};
    }

    /** The core's classes that are not its public API: everything in its package that is not public. */
    private static DescribedPredicate<JavaClass> coreInternals() {
        return DescribedPredicate.describe("are the core's internals (not public)",
            type -> type.getPackageName().equals(ROOT) && !type.getModifiers().contains(JavaModifier.PUBLIC)
                && !type.getName().startsWith(ROOT + ".PoolHooks$"));
    }
}
