package io.github.dropwizardhikari.faulthandling;

import org.jspecify.annotations.Nullable;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import javax.net.SocketFactory;

/**
 * The sockets of a pool's MariaDB connections, named by the session check as MariaDB Connector/J's
 * {@code socketFactory} option, so that a dead session can be cut. Connector/J 3.5's {@code abort} and {@code close}
 * wait for a read in progress before closing the socket, so a call blocked on a server that says nothing would keep
 * its borrower for good; closing the socket itself ends that read at once. Each socket is known by the thread id the
 * server sends first on it (the handshake's connection id, what {@code getThreadId()} returns). The driver creates
 * this factory by class name, with no context: the sockets are kept in one map per JVM, each removed when closed.
 * Public only for the driver; not an API.
 */
public final class MariaDbSocketFactory extends SocketFactory {
    private static final Map<Long, Set<Socket>> BY_THREAD_ID = new ConcurrentHashMap<>();

    /**
     * Closes the socket of the session {@code threadId}, so a call blocked on it fails at once.
     *
     * @return whether exactly one open socket has that id (two servers may give one id each: none is closed then)
     */
    static boolean close(long threadId) {
        Set<Socket> sockets = BY_THREAD_ID.get(threadId);
        if (sockets == null || sockets.size() != 1) {
            return false;
        }
        for (Socket socket : sockets) {
            try {
                socket.close();
            } catch (IOException e) {
                // closed already
            }
        }
        return true;
    }

    @Override
    public Socket createSocket() {
        return new SessionSocket();
    }

    @Override
    public Socket createSocket(String host, int port) throws IOException {
        return connected(new InetSocketAddress(host, port), null);
    }

    @Override
    public Socket createSocket(String host, int port, InetAddress localHost, int localPort) throws IOException {
        return connected(new InetSocketAddress(host, port), new InetSocketAddress(localHost, localPort));
    }

    @Override
    public Socket createSocket(InetAddress host, int port) throws IOException {
        return connected(new InetSocketAddress(host, port), null);
    }

    @Override
    public Socket createSocket(InetAddress address, int port, InetAddress localAddress, int localPort)
        throws IOException {
        return connected(new InetSocketAddress(address, port), new InetSocketAddress(localAddress, localPort));
    }

    /** @return a session socket bound to {@code local} when given, connected to {@code remote} */
    private Socket connected(InetSocketAddress remote, @Nullable InetSocketAddress local) throws IOException {
        Socket socket = createSocket();
        if (local != null) {
            socket.bind(local);
        }
        socket.connect(remote);
        return socket;
    }

    /** A plain socket that learns its session's thread id from the server's first packet. */
    private static final class SessionSocket extends Socket {
        private InputStream in;
        private volatile long threadId = -1;

        @Override
        public synchronized InputStream getInputStream() throws IOException {
            if (in == null) {
                in = new Handshake(super.getInputStream(), this);
            }
            return in;
        }

        void learned(long id) {
            threadId = id;
            BY_THREAD_ID.computeIfAbsent(id, key -> ConcurrentHashMap.newKeySet()).add(this);
            if (isClosed()) {
                forget();
            }
        }

        @Override
        public synchronized void close() throws IOException {
            try {
                super.close();
            } finally {
                forget();
            }
        }

        private void forget() {
            long id = threadId;
            if (id >= 0) {
                BY_THREAD_ID.computeIfPresent(id, (key, sockets) -> {
                    sockets.remove(this);
                    return sockets.isEmpty() ? null : sockets;
                });
            }
        }
    }

    /**
     * Reads through, keeping the first bytes until the initial handshake packet's connection id has passed: a 4-byte
     * header, the protocol version, the server version ending in 0, then the id in 4 bytes, little-endian.
     */
    private static final class Handshake extends FilterInputStream {
        private static final int MOST = 512;
        private final SessionSocket socket;
        private byte[] kept = new byte[MOST];
        private int length;

        Handshake(InputStream in, SessionSocket socket) {
            super(in);
            this.socket = socket;
        }

        @Override
        public int read() throws IOException {
            int read = super.read();
            if (read >= 0 && kept != null) {
                keep(new byte[] {(byte) read}, 0, 1);
            }
            return read;
        }

        @Override
        public int read(byte[] buffer, int offset, int count) throws IOException {
            int read = in.read(buffer, offset, count);
            if (read > 0 && kept != null) {
                keep(buffer, offset, read);
            }
            return read;
        }

        private void keep(byte[] buffer, int offset, int count) {
            int copied = Math.min(count, MOST - length);
            System.arraycopy(buffer, offset, kept, length, copied);
            length += copied;
            if (length > 4 && kept[4] != 10) {
                // not a handshake (an error packet: too many connections): the socket stays unnamed
                kept = null;
                return;
            }
            int end = 5;
            while (end < length && kept[end] != 0) {
                end++;
            }
            if (end + 4 < length) {
                long id = (kept[end + 1] & 0xFFL) | (kept[end + 2] & 0xFFL) << 8 | (kept[end + 3] & 0xFFL) << 16
                    | (kept[end + 4] & 0xFFL) << 24;
                kept = null;
                socket.learned(id);
            } else if (length == MOST) {
                kept = null;
            }
        }
    }
}
