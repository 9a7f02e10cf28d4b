package io.github.dropwizardhikari.it.db;

/** The databases the integration suite runs against. */
public enum DatabaseKind {
    POSTGRES("PostgreSQL", "org.postgresql.Driver"),
    MARIADB("MariaDB", "org.mariadb.jdbc.Driver");

    private final String displayName;
    private final String driverClass;

    DatabaseKind(String displayName, String driverClass) {
        this.displayName = displayName;
        this.driverClass = driverClass;
    }

    public String displayName() {
        return displayName;
    }

    public String driverClass() {
        return driverClass;
    }
}
