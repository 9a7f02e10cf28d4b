package io.github.dropwizardhikari.faulthandling;

import com.zaxxer.hikari.SQLExceptionOverride;

/** An exception override for the {@code full.yml} fixture: keeps every connection. */
public class NeverEvict implements SQLExceptionOverride {
    @java.lang.Override
    public Override adjudicate(java.sql.SQLException sqlException) {
        return Override.DO_NOT_EVICT;
    }
}
