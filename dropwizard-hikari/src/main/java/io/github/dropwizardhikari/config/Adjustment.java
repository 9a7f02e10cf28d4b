package io.github.dropwizardhikari.config;

/**
 * A value HikariCP cannot honour exactly, replaced with the nearest safe one.
 *
 * @param field the setting's name
 * @param asked the value the configuration gave (or the default it left in place), as text
 * @param used  the value the pool uses, as text
 * @param why   why HikariCP needs the change
 */
record Adjustment(String field, String asked, String used, String why) {
    /** @return the warning: the setting's full path first, then the value asked, the value used and why */
    public String warning(String path) {
        return path + " is " + asked + "; using " + used + " instead: " + why;
    }
}
