package io.github.dropwizardhikari;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A local port where the database is down. It lies below 32768, where Linux begins the ports it hands out for
 * outgoing connections, and it is held by a socket that never listens: connections to it are refused, and no client
 * is given it as its own port and no other process listens on it while the test holds it.
 */
final class RefusedPort implements AutoCloseable {
    private static final int FIRST = 20_000;
    private static final int LAST = 32_767;

    private final Socket socket;

    private RefusedPort(Socket socket) {
        this.socket = socket;
    }

    static RefusedPort take() throws IOException {
        int count = LAST - FIRST + 1;
        int offset = ThreadLocalRandom.current().nextInt(count);
        for (int i = 0; i < count; i++) {
            Socket socket = new Socket();
            try {
                socket.bind(new InetSocketAddress("127.0.0.1", FIRST + (offset + i) % count));
                return new RefusedPort(socket);
            } catch (IOException taken) {
                socket.close();
            }
        }
        throw new IOException("no free port between " + FIRST + " and " + LAST);
    }

    /** An H2 URL no server answers. */
    String h2Url() {
        return "jdbc:h2:tcp://127.0.0.1:" + socket.getLocalPort() + "/mem:none";
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
