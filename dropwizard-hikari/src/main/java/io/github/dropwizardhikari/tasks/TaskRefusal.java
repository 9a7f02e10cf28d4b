package io.github.dropwizardhikari.tasks;

/** Why an admin task did nothing: 400 for a request to correct, 409 for a pool whose state does not allow it. */
final class TaskRefusal extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int status;

    private TaskRefusal(int status, String message) {
        super(message, null, false, false);
        this.status = status;
    }

    static TaskRefusal badRequest(String message) {
        return new TaskRefusal(400, message);
    }

    static TaskRefusal conflict(String message) {
        return new TaskRefusal(409, message);
    }

    public int getStatus() {
        return status;
    }
}
