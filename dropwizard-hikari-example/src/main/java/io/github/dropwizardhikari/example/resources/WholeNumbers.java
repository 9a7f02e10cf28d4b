package io.github.dropwizardhikari.example.resources;

import io.github.dropwizardhikari.example.errors.Errors;

import java.math.BigInteger;

/**
 * Reads whole-number request parameters, with a 400 that names the parameter and says what is wrong: missing,
 * not a whole number, or outside its range (including numbers too large for a {@code long}, which
 * {@link Long#parseLong(String)} reports only as "not a number").
 */
final class WholeNumbers {
    private static final int BAD_REQUEST = 400;

    private WholeNumbers() {
    }

    /** Any {@code long}. {@code what} is how the message names the parameter, e.g. {@code query param user}. */
    static long parse(String what, String value) {
        return parse(what, value, Long.MIN_VALUE, Long.MAX_VALUE);
    }

    /** A whole number from {@code min} to {@code max}, both included. */
    static long parse(String what, String value, long min, long max) {
        if (value == null || value.isBlank()) {
            throw Errors.of(BAD_REQUEST, what + " is required");
        }
        String trimmed = value.trim();
        if (!trimmed.matches("[+-]?[0-9]{1,1000}")) {
            throw Errors.of(BAD_REQUEST, what + " must be a whole number, not '" + value + "'");
        }
        BigInteger number = new BigInteger(trimmed);
        if (number.compareTo(BigInteger.valueOf(min)) < 0 || number.compareTo(BigInteger.valueOf(max)) > 0) {
            throw Errors.of(BAD_REQUEST, what + " must be between " + min + " and " + max + ", not '" + value + "'");
        }
        return number.longValueExact();
    }
}
