package io.github.dropwizardhikari.sizing;

import org.jspecify.annotations.Nullable;

/**
 * The sentence the sizing log prints: a pool's {@code maxSize} as a share of the connections it competes for.
 * A share above one half is a warning, since a second instance of the application would then run the server out.
 */
public record PoolShare(boolean warning, String message) {
    static final String POOLER_ADVICE = "lower maxSize, or share the server's connections through a transaction "
        + "pooler such as PgBouncer (see pooler: transaction in the README)";

    /** A pool that connects to the server itself. */
    public static PoolShare direct(String pool, int maxSize, ServerLimit server) {
        int percent = percent(maxSize, server.connections());
        String of = "maxSize " + maxSize + " is " + percent + "% of the " + server.connections() + " connections "
            + server.server() + " accepts (" + server.derivation() + ")";
        if (isMoreThanHalf(maxSize, server.connections())) {
            return new PoolShare(true, "Pool " + pool + ": " + of + "; a second instance of this application "
                + "would run the server out of connections: " + POOLER_ADVICE);
        }
        return new PoolShare(false, "Pool " + pool + ": " + of + "; " + instances(maxSize, server.connections())
            + " pools of this size fill it");
    }

    /** A pool behind a transaction pooler whose limits were read from its admin console. */
    public static PoolShare throughPgBouncer(String pool, int maxSize, PgBouncerLimit bouncer,
                                             @Nullable ServerLimit server) {
        int percent = percent(maxSize, bouncer.maxClientConnections());
        String of = "maxSize " + maxSize + " is " + percent + "% of the " + bouncer.maxClientConnections()
            + " client connections PgBouncer accepts (max_client_conn); it opens at most " + bouncer.defaultPoolSize()
            + " server connections per database and user (default_pool_size"
            + (bouncer.maxDbConnections() > 0 ? ", max_db_connections " + bouncer.maxDbConnections() : "") + ")"
            + behind(server);
        if (isMoreThanHalf(maxSize, bouncer.maxClientConnections())) {
            return new PoolShare(true, "Pool " + pool + ": " + of + "; a second instance of this application would "
                + "run PgBouncer out of client connections: raise max_client_conn or lower maxSize");
        }
        return new PoolShare(false, "Pool " + pool + ": " + of);
    }

    /** A pool behind a transaction pooler whose limits could not be read. */
    public static PoolShare throughUnknownPooler(String pool, int maxSize, String why, @Nullable ServerLimit server) {
        return new PoolShare(false, "Pool " + pool + ": maxSize " + maxSize + " goes through a transaction pooler "
            + "whose client limit cannot be read (PgBouncer shows it only on its admin console, database pgbouncer, "
            + "to users in admin_users or stats_users: " + why + ")" + behind(server)
            + "; the pooler's server connections, not this pool's, count against that");
    }

    private static String behind(@Nullable ServerLimit server) {
        return server == null ? "" : "; " + server.server() + " behind it accepts " + server.connections()
            + " (" + server.derivation() + ")";
    }

    private static boolean isMoreThanHalf(int part, int whole) {
        return 2L * part > whole;
    }

    private static int percent(int part, int whole) {
        return whole <= 0 ? 100 : (int) Math.round(100.0 * part / whole);
    }

    private static int instances(int part, int whole) {
        return part <= 0 ? 0 : whole / part;
    }
}
