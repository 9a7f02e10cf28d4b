package io.github.dropwizardhikari.operations;

import org.jspecify.annotations.Nullable;

/**
 * The sizing log's sentence: a pool's {@code maxSize} as a share of the connections it competes for; above one half
 * is a warning, since a second instance of the application would run the server out.
 */
record PoolShare(boolean warning, String message) {
    static final String POOLER_ADVICE = "lower maxSize, or share the server's connections through a transaction "
        + "pooler such as PgBouncer (the operations extension's pooler: transaction)";

    static PoolShare direct(String pool, int maxSize, ServerLimit server) {
        int connections = server.connections();
        int percent = connections <= 0 ? 100 : (int) Math.round(100.0 * maxSize / connections);
        String of = "maxSize " + maxSize + " is " + percent + "% of the " + server.connections() + " connections "
            + server.server() + " accepts (" + server.derivation() + ")";
        if (2L * maxSize > server.connections()) {
            return new PoolShare(true, "Pool " + pool + ": " + of + "; a second instance of this application "
                + "would run the server out of connections: " + POOLER_ADVICE);
        }
        return new PoolShare(false, "Pool " + pool + ": " + of + "; " + (maxSize <= 0 ? 0 : connections / maxSize)
            + " pools of this size fill it");
    }

    /**
     * The pooler's client limit cannot be read: PgBouncer shows {@code max_client_conn} only on its admin console,
     * which refuses the {@code SET extra_float_digits} PostgreSQL's JDBC driver sends to a server below version 12.
     */
    static PoolShare throughPooler(String pool, int maxSize, @Nullable ServerLimit server) {
        return new PoolShare(false, "Pool " + pool + ": maxSize " + maxSize + " goes through a transaction pooler "
            + "(pooler: transaction), whose client limit the bundle cannot read: PgBouncer shows max_client_conn "
            + "only on its admin console, which PostgreSQL's JDBC driver cannot use; check that it exceeds the sum "
            + "of every instance's maxSize" + (server == null ? "" : ". " + server.server() + " behind it accepts "
            + server.connections() + " (" + server.derivation() + "), shared by the pooler's server connections, "
            + "not by this pool's"));
    }
}
