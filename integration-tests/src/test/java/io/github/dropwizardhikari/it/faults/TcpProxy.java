package io.github.dropwizardhikari.it.faults;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
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
 * another server.
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
    private volatile Mode mode = Mode.FORWARD;

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
            threads.execute(() -> pipe(client, upstream));
            threads.execute(() -> pipe(upstream, client));
        } catch (IOException e) {
            closeQuietly(client);
        }
    }

    private void pipe(Socket from, Socket to) {
        byte[] buffer = new byte[16 * 1024];
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            int read;
            while ((read = in.read(buffer)) != -1) {
                out.write(buffer, 0, read);
                out.flush();
            }
        } catch (IOException e) {
            // one side went away: the other goes too
        } finally {
            closeQuietly(from);
            closeQuietly(to);
            open.remove(from);
            open.remove(to);
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
