package io.github.dropwizardhikari.holders;

import org.jspecify.annotations.Nullable;

import java.util.concurrent.ThreadLocalRandom;

/**
 * What the extension keeps per thread, in one {@code ThreadLocal} (per virtual thread too) that is read, never
 * removed, on each borrow and return: the holder of what the thread borrows, set by the Jersey listener for a
 * request once its resource method is matched and by the admin filter for a task, the thread's own name otherwise;
 * and the slot the thread took last, where its next borrow and return look first (a hint: any slot will do).
 */
final class Labels {
    private final ThreadLocal<State> state = ThreadLocal.withInitial(State::new);

    State state() {
        return state.get();
    }

    Holder current() {
        return state.get().holder();
    }

    /** @return whether a request or task names the current thread's holder */
    boolean isSet() {
        return state.get().request != null;
    }

    void set(@Nullable Holder holder) {
        state.get().request = holder;
    }

    void clear() {
        state.get().request = null;
    }

    /** One thread's holder and last hold; only that thread reads or writes it. */
    static final class State {
        @Nullable
        private Holder request;
        @Nullable
        private String threadName;
        @Nullable
        private Holder byThread;
        // the slot this thread took last: where its next borrow, and the hold its next return ends, are looked for
        int slotHint = ThreadLocalRandom.current().nextInt(1 << 16);
        // where this thread records its figures
        final int stripe = Stripes.next();

        Holder holder() {
            if (request != null) {
                return request;
            }
            Thread thread = Thread.currentThread();
            String name = thread.getName();
            // kept while the thread's name stays: a borrow outside requests builds no string
            if (byThread == null || !name.equals(threadName)) {
                threadName = name;
                byThread = Holder.thread(thread);
            }
            return byThread;
        }
    }
}
