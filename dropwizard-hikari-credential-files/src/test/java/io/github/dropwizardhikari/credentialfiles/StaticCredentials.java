package io.github.dropwizardhikari.credentialfiles;

import com.zaxxer.hikari.HikariCredentialsProvider;
import com.zaxxer.hikari.util.Credentials;

/** A credentials provider named by class, for the fixture that names a second source of credentials. */
public class StaticCredentials implements HikariCredentialsProvider {
    @Override
    public Credentials getCredentials() {
        return Credentials.of("sa", "");
    }
}
