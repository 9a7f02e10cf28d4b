package io.github.dropwizardhikari.faulthandling;

import com.codahale.metrics.health.HealthCheck;
import org.jspecify.annotations.Nullable;

import java.util.Optional;

/**
 * The pool's connectivity check, unhealthy with the cause in one line while the pool's connections reach a server
 * that cannot serve the block: read-only under a block that expects a primary, or silent past the session check's
 * limit. Otherwise the wrapped check answers.
 */
final class ServingCheck extends HealthCheck {
    private final HealthCheck check;
    @Nullable
    private final ServerRole role;
    @Nullable
    private final DeadSessionCheck sessions;

    ServingCheck(HealthCheck check, @Nullable ServerRole role, @Nullable DeadSessionCheck sessions) {
        this.check = check;
        this.role = role;
        this.sessions = sessions;
    }

    @Override
    protected Result check() {
        Optional<String> problem = sessions == null ? Optional.empty() : sessions.problem();
        if (problem.isEmpty() && role != null) {
            problem = role.problem();
        }
        return problem.isPresent() ? Result.unhealthy(problem.get()) : check.execute();
    }
}
