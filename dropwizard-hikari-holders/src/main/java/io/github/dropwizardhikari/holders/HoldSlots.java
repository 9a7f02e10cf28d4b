package io.github.dropwizardhikari.holders;

import org.jspecify.annotations.Nullable;

import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The holds of one pool in a fixed array of slots: a borrow takes a free slot with one compare-and-set, starting
 * from the slot its thread took last (so threads that borrow and return in turn keep to slots of their own), and a
 * return clears it. Cheaper per borrow than a concurrent set, and bounded: when every slot is taken, a hold is not
 * recorded.
 */
final class HoldSlots {
    // a slot's reference alone on its cache line (64 bytes, 16 compressed references): threads that borrow and return
    // at once write to slots of their own, and would otherwise slow one another down through shared lines; slot i is
    // at line i + 1, so the first and last lines keep the slots apart from what lies around the array
    private static final int SPREAD = 16;

    private final AtomicReferenceArray<Hold> slots;
    private final int capacity;

    HoldSlots(int capacity) {
        this.capacity = capacity;
        this.slots = new AtomicReferenceArray<>((capacity + 2) * SPREAD);
    }

    int capacity() {
        return capacity;
    }

    /** @return the slot taken, or -1 when every slot is taken */
    int add(Hold hold, int hint) {
        for (int i = 0; i < capacity; i++) {
            int slot = Math.floorMod(hint + i, capacity);
            if (slots.get(index(slot)) == null && slots.compareAndSet(index(slot), null, hold)) {
                return slot;
            }
        }
        return -1;
    }

    /** @return whether this call removed the hold from its slot */
    boolean remove(Hold hold) {
        int slot = hold.slot;
        if (slot >= 0) {
            return slots.compareAndSet(index(slot), hold, null);
        }
        // taken, and its slot not yet noted by the borrowing thread
        for (int i = 0; i < capacity; i++) {
            if (slots.get(index(i)) == hold) {
                return slots.compareAndSet(index(i), hold, null);
            }
        }
        return false;
    }

    /** @return the hold of {@code connection} (the same object), looked for from slot {@code hint} on; else null */
    @Nullable
    Hold find(Connection connection, int hint) {
        for (int i = 0; i < capacity; i++) {
            Hold hold = slots.get(index(Math.floorMod(hint + i, capacity)));
            if (hold != null && hold.connection == connection) {
                return hold;
            }
        }
        return null;
    }

    /** @return the holds now, in no order */
    List<Hold> all() {
        List<Hold> all = new ArrayList<>();
        for (int i = 0; i < capacity; i++) {
            Hold hold = slots.get(index(i));
            if (hold != null) {
                all.add(hold);
            }
        }
        return all;
    }

    void clear() {
        for (int i = 0; i < capacity; i++) {
            slots.set(index(i), null);
        }
    }

    private static int index(int slot) {
        return (slot + 1) * SPREAD;
    }
}
