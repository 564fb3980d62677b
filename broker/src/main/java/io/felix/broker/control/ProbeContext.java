package io.felix.broker.control;

import java.time.Clock;
import org.slf4j.Logger;

/**
 * What a part of the placement controller needs to ask replicas and judge their answers in time: the settings
 * (probe interval, timeouts), the probe that sends the questions, the clock, and where to log.
 */
record ProbeContext(ControlSettings settings, ReplicaProbe probe, Clock clock, Logger log) {}
