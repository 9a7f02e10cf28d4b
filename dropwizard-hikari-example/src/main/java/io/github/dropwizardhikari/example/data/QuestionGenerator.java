package io.github.dropwizardhikari.example.data;

import java.io.IOException;
import java.io.Writer;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.SplittableRandom;

/**
 * Writes a deterministic data set in the format of the Stack Overflow data set's {@code questions.csv}: the same
 * columns, ISO-8601 UTC dates, {@code NA} for null.
 *
 * <p>Owners are skewed like the real data: a cubic transform of a uniform draw puts most questions on a few
 * low owner ids and leaves a long tail of owners with one or two. About 5% have no owner, 15% are closed and
 * 5% deleted.</p>
 */
public final class QuestionGenerator {
    public static final String HEADER = "Id,CreationDate,ClosedDate,DeletionDate,Score,OwnerUserId,AnswerCount";
    static final String NULL = "NA";
    private static final Instant FIRST_QUESTION = Instant.parse("2008-07-31T21:26:37Z");

    private final long seed;
    private final int owners;

    /**
     * @param seed   the random seed: the same seed gives the same file
     * @param owners how many distinct owner ids to draw from (1 to {@code owners})
     */
    public QuestionGenerator(long seed, int owners) {
        if (owners < 1) {
            throw new IllegalArgumentException("owners must be at least 1");
        }
        this.seed = seed;
        this.owners = owners;
    }

    public void write(long rows, Writer out) throws IOException {
        SplittableRandom random = new SplittableRandom(seed);
        Instant created = FIRST_QUESTION;
        out.write(HEADER);
        out.write('\n');
        for (long id = 1; id <= rows; id++) {
            created = created.plusSeconds(1 + random.nextInt(600));
            Instant closed = random.nextInt(100) < 15 ? created.plus(1 + random.nextInt(900), ChronoUnit.DAYS) : null;
            Instant deleted = random.nextInt(100) < 5 ? created.plus(1 + random.nextInt(900), ChronoUnit.DAYS) : null;
            int score = (int) Math.round(random.nextGaussian() * 20) + 2;
            String owner = random.nextInt(100) < 5 ? NULL : String.valueOf(skewedOwner(random));
            int answers = (int) Math.floor(Math.pow(random.nextDouble(), 2) * 30);
            out.write(id + "," + created + "," + orNull(closed) + "," + orNull(deleted) + "," + score + ","
                + owner + "," + answers + "\n");
        }
        out.flush();
    }

    private long skewedOwner(SplittableRandom random) {
        double u = random.nextDouble();
        return 1 + (long) Math.floor(owners * u * u * u);
    }

    private static String orNull(Instant instant) {
        return instant == null ? NULL : instant.toString();
    }
}
