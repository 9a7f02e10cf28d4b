package io.github.dropwizardhikari.example.data;

import org.junit.jupiter.api.Test;

import java.io.StringWriter;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class QuestionGeneratorTest {
    private static String generate(long seed, long rows) throws Exception {
        StringWriter out = new StringWriter();
        new QuestionGenerator(seed, 1_000).write(rows, out);
        return out.toString();
    }

    private static List<String[]> rows(String csv) {
        return csv.lines().skip(1).map(line -> line.split(",", -1)).toList();
    }

    @Test
    void theSameSeedGivesTheSameFile() throws Exception {
        assertThat(generate(7, 2_000)).isEqualTo(generate(7, 2_000));
        assertThat(generate(7, 2_000)).isNotEqualTo(generate(8, 2_000));
    }

    @Test
    void writesTheSeedDataSetsFormat() throws Exception {
        String csv = generate(1, 1_000);
        List<String[]> rows = rows(csv);

        assertThat(csv.lines().findFirst()).contains(
            "Id,CreationDate,ClosedDate,DeletionDate,Score,OwnerUserId,AnswerCount");
        assertThat(rows).hasSize(1_000).allSatisfy(row -> assertThat(row).hasSize(7));
        assertThat(rows.get(0)[0]).isEqualTo("1");
        assertThat(rows.get(0)[1]).matches("\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}Z");
    }

    @Test
    void someValuesAreNullAsNa() throws Exception {
        List<String[]> rows = rows(generate(3, 5_000));

        // about 85% never closed, 95% never deleted, 5% without owner
        assertThat(nulls(rows, 2)).isBetween(4_000L, 4_500L);
        assertThat(nulls(rows, 3)).isBetween(4_600L, 4_900L);
        assertThat(nulls(rows, 5)).isBetween(150L, 400L);
        assertThat(rows).noneMatch(row -> row[1].equals("NA") || row[4].equals("NA") || row[6].equals("NA"));
    }

    private static long nulls(List<String[]> rows, int column) {
        return rows.stream().filter(row -> row[column].equals("NA")).count();
    }

    @Test
    void aFewOwnersHaveMostQuestions() throws Exception {
        Map<String, Long> perOwner = rows(generate(5, 20_000)).stream()
            .map(row -> row[5]).filter(owner -> !owner.equals("NA"))
            .collect(Collectors.groupingBy(Function.identity(), Collectors.counting()));
        long[] counts = perOwner.values().stream().mapToLong(Long::longValue).sorted().toArray();
        long total = Arrays.stream(counts).sum();
        long topTen = Arrays.stream(counts).skip(counts.length - 10L).sum();

        // the ten busiest owners of ~1000 hold far more than their 1% share, and most owners have few
        assertThat((double) topTen / total).isGreaterThan(0.15);
        assertThat(counts[counts.length / 2]).isLessThan(counts[counts.length - 1] / 10);
    }

    @Test
    void refusesNoOwners() {
        assertThatThrownBy(() -> new QuestionGenerator(1, 0)).hasMessage("owners must be at least 1");
    }
}
