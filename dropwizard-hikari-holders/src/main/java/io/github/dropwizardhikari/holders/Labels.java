package io.github.dropwizardhikari.holders;

import org.jspecify.annotations.Nullable;

/**
 * The holder of the connections the current thread borrows: set by the Jersey listener for a request once its
 * resource method is matched, and by the admin filter for a task; a thread's own name otherwise. A
 * {@code ThreadLocal} is per virtual thread too.
 */
final class Labels {
    private final ThreadLocal<Holder> current = new ThreadLocal<>();

    Holder current() {
        Holder holder = current.get();
        return holder == null ? Holder.thread(Thread.currentThread()) : holder;
    }

    void set(@Nullable Holder holder) {
        if (holder == null) {
            current.remove();
        } else {
            current.set(holder);
        }
    }

    void clear() {
        current.remove();
    }
}
