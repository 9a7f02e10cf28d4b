package io.github.dropwizardhikari.faulthandling;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sockets MariaDB connections are made on with the session check: each is known by the connection id of the
 * server's handshake packet, and closing it by that id ends a read blocked on a server that sends nothing more.
 */
class MariaDbSocketFactoryTest {
    @Test
    void aReadBlockedOnASilentServerEndsWhenTheSessionIsCut() throws Exception {
        long threadId = 0x7A0B0C0DL + 1_000_000L;
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
             Socket socket = new MariaDbSocketFactory().createSocket(InetAddress.getLoopbackAddress(),
                 server.getLocalPort());
             Socket accepted = server.accept()) {
            OutputStream out = accepted.getOutputStream();
            out.write(handshake(threadId));
            out.flush();
            InputStream in = socket.getInputStream();
            byte[] first = new byte[handshake(threadId).length];
            assertThat(in.readNBytes(first, 0, first.length)).isEqualTo(first.length);
            assertThat(MariaDbSocketFactory.close(threadId + 1)).as("another session's id").isFalse();

            // the server says nothing more: the read waits until the session is cut
            CompletableFuture<Object> blocked = CompletableFuture.supplyAsync(() -> {
                try {
                    return in.read();
                } catch (IOException e) {
                    return e;
                }
            });
            TimeUnit.MILLISECONDS.sleep(200);
            assertThat(blocked).isNotDone();
            assertThat(MariaDbSocketFactory.close(threadId)).isTrue();
            assertThat(blocked.get(5, TimeUnit.SECONDS)).isInstanceOf(IOException.class);
            assertThat(MariaDbSocketFactory.close(threadId)).as("forgotten once closed").isFalse();
        }
    }

    @Test
    void aSocketWhoseServerSendsNoHandshakeStaysUnnamed() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
             Socket socket = new MariaDbSocketFactory().createSocket("127.0.0.1", server.getLocalPort());
             Socket accepted = server.accept()) {
            // an error packet (0xFF) where the handshake would be: too many connections
            byte[] error = {9, 0, 0, 0, (byte) 0xFF, 0x10, 0x04, 'T', 'o', 'o', ' ', 'm', 'a', 'n', 'y', 0, 1, 2, 3, 4};
            accepted.getOutputStream().write(error);
            accepted.getOutputStream().flush();
            assertThat(socket.getInputStream().readNBytes(error.length)).hasSize(error.length);
            assertThat(MariaDbSocketFactory.close(0x04030201L)).isFalse();
        }
    }

    /** The start of MariaDB's initial handshake packet: header, protocol 10, server version, connection id. */
    private static byte[] handshake(long threadId) {
        byte[] version = "10.11.19-MariaDB\0".getBytes(StandardCharsets.US_ASCII);
        byte[] packet = new byte[4 + 1 + version.length + 4 + 8];
        int payload = packet.length - 4;
        packet[0] = (byte) payload;
        packet[4] = 10;
        System.arraycopy(version, 0, packet, 5, version.length);
        int at = 5 + version.length;
        for (int i = 0; i < 4; i++) {
            packet[at + i] = (byte) (threadId >>> (8 * i));
        }
        return packet;
    }
}
