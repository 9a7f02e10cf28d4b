package io.github.dropwizardhikari.holders;

import org.jspecify.annotations.Nullable;

/**
 * The holder of the connections the current thread borrows: set by the Jersey listener for a request once its
 * resource method is matched, and by the admin filter for a task; a thread's own name otherwise. A
 * {@code ThreadLocal} is per virtual thread too.
 */
final class Labels {
    private final ThreadLocal<Holder> current = new ThreadLocal<>();
    // the thread's holder by its name, kept while the name stays: a borrow outside requests builds no string
    private final ThreadLocal<Named> byThread = new ThreadLocal<>();

    Holder current() {
        Holder holder = current.get();
        return holder == null ? thread(Thread.currentThread()) : holder;
    }

    private Holder thread(Thread thread) {
        String name = thread.getName();
        Named known = byThread.get();
        if (known != null && known.threadName.equals(name)) {
            return known.holder;
        }
        Holder holder = Holder.thread(thread);
        byThread.set(new Named(name, holder));
        return holder;
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

    private record Named(String threadName, Holder holder) {
    }
}
