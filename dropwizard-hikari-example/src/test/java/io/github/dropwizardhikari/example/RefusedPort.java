package io.github.dropwizardhikari.example;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A local port where the database is down: bound without listening, so connections to it are refused, until the
 * test releases it to start the database there. It lies below 32768, where Linux begins the ports it hands out for
 * outgoing connections and for port 0, so no other process takes it by chance while the test's database is away.
 */
final class RefusedPort implements AutoCloseable {
    private static final int FIRST = 20_000;
    private static final int LAST = 32_767;

    final int port;
    private Socket socket;

    private RefusedPort(int port, Socket socket) {
        this.port = port;
        this.socket = socket;
    }

    static RefusedPort take() throws IOException {
        int count = LAST - FIRST + 1;
        int offset = ThreadLocalRandom.current().nextInt(count);
        for (int i = 0; i < count; i++) {
            int port = FIRST + (offset + i) % count;
            try {
                return new RefusedPort(port, bound(port));
            } catch (IOException taken) {
                // another process holds it: try the next
            }
        }
        throw new IOException("no free port between " + FIRST + " and " + LAST);
    }

    /** Frees the port for the test's database to listen on. */
    void release() throws IOException {
        socket.close();
    }

    /** Holds the port again once the database on it has stopped. */
    void refuseAgain() throws IOException {
        socket = bound(port);
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }

    private static Socket bound(int port) throws IOException {
        Socket socket = new Socket();
        try {
            // the database's closed connections may leave the port in TIME_WAIT
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress("127.0.0.1", port));
            return socket;
        } catch (IOException e) {
            socket.close();
            throw e;
        }
    }
}
