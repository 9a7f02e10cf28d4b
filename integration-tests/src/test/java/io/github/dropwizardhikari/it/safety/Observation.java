package io.github.dropwizardhikari.it.safety;

/** What a test saw a pool do for one guarantee. */
public record Observation(Outcome outcome, String note) {
    /** Whether the pool kept the guarantee. */
    public enum Outcome {
        /** The next borrower could not tell the connection from a fresh one. */
        KEPT,
        /** State or work leaked to the next borrower, or the timeout was missed. */
        BROKEN,
        /** The driver cannot express the case, so no pool can be judged on it. */
        NOT_APPLICABLE
    }

    public static Observation kept(String note) {
        return new Observation(Outcome.KEPT, note);
    }

    public static Observation broken(String note) {
        return new Observation(Outcome.BROKEN, note);
    }

    public static Observation notApplicable(String note) {
        return new Observation(Outcome.NOT_APPLICABLE, note);
    }

    public static Observation of(boolean kept, String note) {
        return kept ? kept(note) : broken(note);
    }
}
