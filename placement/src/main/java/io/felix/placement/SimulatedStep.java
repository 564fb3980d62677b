package io.felix.placement;

/** A step of a simulation and the pass (from 1) that planned it. */
public record SimulatedStep(int pass, Step step) {}
