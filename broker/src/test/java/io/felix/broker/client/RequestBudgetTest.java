package io.felix.broker.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class RequestBudgetTest {

  @Test
  void waitersAreAdmittedInArrivalOrderAsBytesComeBack() {
    RequestBudget budget = new RequestBudget(100);
    CompletableFuture<Long> first = budget.acquire(60).toCompletableFuture();
    CompletableFuture<Long> big = budget.acquire(50).toCompletableFuture();
    CompletableFuture<Long> small = budget.acquire(10).toCompletableFuture();
    assertEquals(60L, first.getNow(-1L));
    assertFalse(big.isDone());
    assertFalse(small.isDone(), "a small frame does not overtake a waiting large one");
    budget.release(60);
    assertEquals(50L, big.getNow(-1L));
    assertEquals(10L, small.getNow(-1L));
    assertEquals(60, budget.inUse());
  }

  @Test
  void aFrameLargerThanTheBudgetWaitsForTheWholeBudgetAndTakesIt() {
    RequestBudget budget = new RequestBudget(100);
    budget.acquire(1);
    CompletableFuture<Long> huge = budget.acquire(1000).toCompletableFuture();
    assertFalse(huge.isDone());
    budget.release(1);
    assertEquals(100L, huge.getNow(-1L));
    assertEquals(100, budget.inUse());
  }

  @Test
  void aClosedConnectionGivesBackWhatItHeldAndWhatItIsGrantedLater() {
    RequestBudget broker = new RequestBudget(100);
    ConnectionBudget connection = new ConnectionBudget(broker, 80);
    ConnectionBudget other = new ConnectionBudget(broker, 80);
    CompletableFuture<ConnectionBudget.Reservation> held = connection.acquire(70).toCompletableFuture();
    CompletableFuture<ConnectionBudget.Reservation> blocker = other.acquire(30).toCompletableFuture();
    CompletableFuture<ConnectionBudget.Reservation> late = connection.acquire(10).toCompletableFuture();
    assertTrue(held.isDone() && blocker.isDone());
    assertFalse(late.isDone(), "waits for the broker's budget");
    connection.close();
    assertEquals(30, broker.inUse(), "the closed connection's 70 bytes are back");
    other.release(blocker.join());
    assertTrue(late.isDone());
    assertEquals(0, broker.inUse(), "a grant arriving after the close is given back at once");
    connection.release(held.join()); // its request ends after the close: nothing is given back twice
    assertEquals(0, broker.inUse());
  }
}
