package io.github.dropwizardhikari.holders;

/**
 * What holds a connection, as the timeout, the admin task and the leak warning name it: a resource method
 * ({@code GET /people/{id}}), an admin task ({@code task "pool-evict"}) or, outside both, a thread
 * ({@code thread "nightly-export"}).
 *
 * @param name   the name shown
 * @param series the name of its metrics: the resource method or task, or {@code other} for any thread, so that
 *               the number of series is bounded by the application's resource methods and tasks
 */
record Holder(String name, String series) {
    static final String OTHER = "other";

    static Holder request(String httpMethod, String template) {
        String name = httpMethod + " " + template;
        return new Holder(name, name);
    }

    static Holder task(String task) {
        String name = "task \"" + task + "\"";
        return new Holder(name, name);
    }

    static Holder thread(Thread thread) {
        String name = thread.getName();
        // a virtual thread has no name unless given one
        return new Holder(name.isEmpty() ? OTHER : "thread \"" + name + "\"", OTHER);
    }
}
