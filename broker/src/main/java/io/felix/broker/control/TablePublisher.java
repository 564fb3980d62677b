package io.felix.broker.control;

import io.felix.broker.assignment.AssignmentTable;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * How the placement singleton sends assignment tables to the brokers' holders: each new table as a change of the last
 * one sent ({@link TableDeltas}) where the change fits one message, otherwise whole ({@link TableChunks}); the whole
 * table to a holder that is new or asks for it; and, on the placement timer, only the newest version, so a holder
 * that missed a change notices the gap and asks (Artery delivers at most once). Lives in the singleton, on its thread.
 */
final class TablePublisher {

  /** The table last sent to every holder; null before the first. */
  private AssignmentTable lastSent;

  void publish(AssignmentTable table, Set<ActorRef<AssignmentHolder.Command>> holders) {
    if (lastSent != null && table.version() == lastSent.version()) {
      return;
    }
    Optional<AssignmentHolder.PublishDelta> delta =
        lastSent == null || lastSent.version() > table.version() ? Optional.empty()
            : TableDeltas.between(lastSent, table);
    if (delta.isPresent()) {
      holders.forEach(holder -> holder.tell(delta.get()));
    } else {
      List<AssignmentHolder.Command> whole = TableChunks.publishing(table);
      holders.forEach(holder -> whole.forEach(holder::tell));
    }
    lastSent = table;
  }

  void publishWhole(AssignmentTable table, ActorRef<AssignmentHolder.Command> holder) {
    TableChunks.publishing(table).forEach(holder::tell);
  }

  void remind(long version, Set<ActorRef<AssignmentHolder.Command>> holders) {
    AssignmentHolder.TableVersion newest = new AssignmentHolder.TableVersion(version);
    holders.forEach(holder -> holder.tell(newest));
  }
}
