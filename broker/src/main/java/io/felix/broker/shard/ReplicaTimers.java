package io.felix.broker.shard;

import java.time.Duration;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;

/**
 * The timers of one replica actor. An idle replica has none: the work tick ({@link ShardReplica.Tick#WORK}) runs
 * only while the replica has pending work (parked produces with deadlines, consumer long polls, a follower that may
 * leave the in-sync set, a report to repeat), and one housekeeping tick ({@link ShardReplica.Tick#HOUSEKEEPING})
 * is scheduled only when retention, compaction or a checkpoint may have something to do.
 */
interface ReplicaTimers {

  /** Starts the work tick unless it runs. */
  void workPending();

  /** Stops the work tick: nothing is pending. */
  void workDone();

  /** One housekeeping tick after {@code delay}, unless one is scheduled already. */
  void housekeepingIn(Duration delay);

  /** Timers of a replica actor on Pekko's scheduler; the work tick every {@code workInterval}. */
  static ReplicaTimers of(TimerScheduler<ShardReplica.Command> timers, Duration workInterval) {
    return new ReplicaTimers() {
      @Override
      public void workPending() {
        if (!timers.isTimerActive(ShardReplica.Tick.WORK)) {
          timers.startTimerWithFixedDelay(ShardReplica.Tick.WORK, ShardReplica.Tick.WORK, workInterval);
        }
      }

      @Override
      public void workDone() {
        timers.cancel(ShardReplica.Tick.WORK);
      }

      @Override
      public void housekeepingIn(Duration delay) {
        if (!timers.isTimerActive(ShardReplica.Tick.HOUSEKEEPING)) {
          timers.startSingleTimer(ShardReplica.Tick.HOUSEKEEPING, ShardReplica.Tick.HOUSEKEEPING, delay);
        }
      }
    };
  }
}
