package io.github.dropwizardhikari.it.faults;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP proxy on 127.0.0.1 in front of a database, which a test can turn into a network fault: refuse new
 * connections, swallow them (accept and never answer), or cut the ones that are open; or send new connections to
 * another server. It can also go silent without closing anything, as a network blackhole or a hung server looks to a
 * client: every connection, open or new, stops passing bytes (they are kept, and arrive when it answers again), or
 * the connections open at a moment stay silent for good while new ones pass, as after a failover to a new address.
 */
public final class TcpProxy implements AutoCloseable {
    /** What happens to a new connection. */
    public enum Mode { FORWARD, REFUSE, BLACKHOLE }

    private static final int LOW_PORTS_FROM = 20_000;
    private static final int LOW_PORTS = 12_000;

    private final ServerSocket server;
    private volatile String targetHost;
    private volatile int targetPort;
    private final AtomicInteger accepted = new AtomicInteger();
    private final ExecutorService threads = Executors.newCachedThreadPool(runnable -> {
        Thread thread = new Thread(runnable, "tcp-proxy");
        thread.setDaemon(true);
        return thread;
    });
    private final List<Socket> open = new CopyOnWriteArrayList<>();
    private final List<Link> links = new CopyOnWriteArrayList<>();
    private volatile Mode mode = Mode.FORWARD;
    private volatile boolean silent;

    /** One forwarded connection: whether it passes bytes now, and whether it never will again. */
    private static final class Link {
        volatile boolean held;
        volatile boolean forever;

        Link(boolean held) {
            this.held = held;
        }
    }

    public TcpProxy(String targetHostAndPort) throws IOException {
        retarget(targetHostAndPort);
        this.server = lowPort();
        threads.execute(this::acceptLoop);
    }

    /**
     * A port below Linux's ephemeral range (32768-60999): while the proxy plays the database down, no outgoing
     * connection of this machine (a driver's, another test's) can be given its port, so "down" stays down.
     */
    private static ServerSocket lowPort() throws IOException {
        int first = LOW_PORTS_FROM + ThreadLocalRandom.current().nextInt(LOW_PORTS);
        for (int i = 0; i < LOW_PORTS; i++) {
            try {
                return new ServerSocket(LOW_PORTS_FROM + (first - LOW_PORTS_FROM + i) % LOW_PORTS, 50,
                    InetAddress.getLoopbackAddress());
            } catch (BindException taken) {
                // another test's, or another program's: the next one
            }
        }
        throw new BindException("no free port in " + LOW_PORTS_FROM + "-" + (LOW_PORTS_FROM + LOW_PORTS - 1));
    }

    public String hostAndPort() {
        return "127.0.0.1:" + server.getLocalPort();
    }

    public void mode(Mode newMode) {
        this.mode = newMode;
    }

    /** Sends new connections to another server from now on, as a DNS switch or a failover proxy does. */
    public synchronized void retarget(String targetHostAndPort) {
        String[] parts = targetHostAndPort.split(":");
        this.targetHost = parts[0];
        this.targetPort = Integer.parseInt(parts[1]);
    }

    /** @return how many connections clients have opened to the proxy so far, whatever happened to them */
    public int accepted() {
        return accepted.get();
    }

    /** Closes every connection that passes through the proxy now, as a network failure would. */
    public void cutAll() {
        for (Socket socket : open) {
            closeQuietly(socket);
        }
        open.clear();
    }

    public int openConnections() {
        return open.size();
    }

    /** Every connection, open or new, stops passing bytes, without closing; what is sent meanwhile is kept. */
    public void silence() {
        silent = true;
        links.forEach(link -> link.held = true);
    }

    /** Every connection silenced passes bytes again, those kept first. */
    public void answer() {
        silent = false;
        links.forEach(link -> link.held = false);
    }

    /**
     * The connections silenced stay silent for good (a client that closes one is let go; one the server ends stays
     * open and silent to its client); new ones pass.
     */
    public void answerNewOnly() {
        links.forEach(link -> link.forever = true);
        silent = false;
    }

    private void acceptLoop() {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                accepted.incrementAndGet();
                switch (mode) {
                    case REFUSE -> closeQuietly(client);
                    case BLACKHOLE -> open.add(client);
                    case FORWARD -> forward(client);
                }
            } catch (IOException e) {
                return;
            }
        }
    }

    private void forward(Socket client) {
        try {
            Socket upstream = new Socket();
            String host;
            int port;
            synchronized (this) {
                host = targetHost;
                port = targetPort;
            }
            // registered before the upstream connect, and the mode checked again after it: a connection being set up
            // while the proxy switches to REFUSE and cuts everything must not slip through the cut
            open.add(client);
            open.add(upstream);
            upstream.connect(new InetSocketAddress(host, port), 5_000);
            if (mode != Mode.FORWARD) {
                closeQuietly(client);
                closeQuietly(upstream);
                return;
            }
            Link link = new Link(silent);
            links.add(link);
            threads.execute(() -> pipe(client, upstream, link, true));
            threads.execute(() -> pipe(upstream, client, link, false));
        } catch (IOException e) {
            closeQuietly(client);
        }
    }

    private void pipe(Socket from, Socket to, Link link, boolean fromClient) {
        byte[] buffer = new byte[16 * 1024];
        ByteArrayOutputStream kept = new ByteArrayOutputStream();
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            // reads wake up now and then, to pass on what was kept once the link answers again
            from.setSoTimeout(20);
            boolean ended = false;
            while (!server.isClosed()) {
                if (!link.held && kept.size() > 0) {
                    kept.writeTo(out);
                    out.flush();
                    kept.reset();
                }
                // a link silent for good tells its client nothing, not even that the server ended the session
                if (ended && (!link.held || link.forever && (fromClient || to.isClosed()))) {
                    return;
                }
                int read = ended ? 0 : readSome(in, buffer);
                if (read == -1) {
                    ended = true;
                } else if (read == 0) {
                    TimeUnit.MILLISECONDS.sleep(ended ? 20 : 0);
                } else if (!link.held) {
                    out.write(buffer, 0, read);
                    out.flush();
                } else if (!link.forever) {
                    kept.write(buffer, 0, read);
                }
            }
        } catch (IOException e) {
            // one side went away: the other goes too
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            links.remove(link);
            closeQuietly(from);
            closeQuietly(to);
            open.remove(from);
            open.remove(to);
        }
    }

    /** @return the bytes read, 0 when none came for a moment, -1 at the end */
    private static int readSome(InputStream in, byte[] buffer) throws IOException {
        try {
            return in.read(buffer);
        } catch (SocketTimeoutException e) {
            return 0;
        }
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException e) {
            // already closed
        }
    }

    @Override
    public void close() throws Exception {
        server.close();
        cutAll();
        threads.shutdownNow();
        threads.awaitTermination(5, TimeUnit.SECONDS);
    }
}
