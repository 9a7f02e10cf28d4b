package io.github.dropwizardhikari.faulthandling;

import java.util.Set;
import java.util.concurrent.CopyOnWriteArraySet;

/**
 * The pools of one block that expect a primary, running now: what one of them learns of the server's role (it turned
 * read-only, as a demoted primary does) reaches them all, since they reach the same server. A block's pools share one
 * instance of the extension, so this holds no state beyond the application.
 */
final class PrimaryServers {
    private final Set<ServerRole> running = new CopyOnWriteArraySet<>();

    void join(ServerRole role) {
        running.add(role);
    }

    void leave(ServerRole role) {
        running.remove(role);
    }

    /** {@code source} found the server read-only: every other running pool of the block retires its connections. */
    void readOnly(ServerRole source, String evidence) {
        for (ServerRole role : running) {
            if (role != source) {
                role.retire("pool " + source.poolName() + " found " + evidence);
            }
        }
    }
}
