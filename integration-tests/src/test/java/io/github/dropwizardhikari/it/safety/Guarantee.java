package io.github.dropwizardhikari.it.safety;

/** The rows of the safety table in HikariCP's "My benchmark doesn't show a difference". */
public enum Guarantee {
    RESPONSE_TIME("Response time guarantee (accurate connection timeout)"),
    RESET_CATALOG("Reset catalog"),
    RESET_READ_ONLY("Reset read-only"),
    RESET_AUTO_COMMIT("Reset auto-commit"),
    RESET_ISOLATION("Reset transaction isolation"),
    RESET_NETWORK_TIMEOUT("Reset network timeout"),
    ROLLBACK_ON_RETURN("Rollback on return"),
    DISPOSABLE_PROXIES("Disposable proxies"),
    CLOSE_OPEN_STATEMENTS("Track and close open statements and result sets"),
    SQLSTATE_EVICTION("SQLException state scanning (evict broken connections)"),
    CLEAR_WARNINGS("Clear SQL warnings");

    private final String title;

    Guarantee(String title) {
        this.title = title;
    }

    public String title() {
        return title;
    }
}
