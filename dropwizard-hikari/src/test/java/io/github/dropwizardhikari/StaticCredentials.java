package io.github.dropwizardhikari;

import com.zaxxer.hikari.HikariCredentialsProvider;
import com.zaxxer.hikari.util.Credentials;

/** A credentials provider for the {@code full.yml} fixture. */
public class StaticCredentials implements HikariCredentialsProvider {
    @Override
    public Credentials getCredentials() {
        return Credentials.of("sa", "");
    }
}
