package io.felix.loadgen.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What {@code bench scale} reads off the admin API. */
class ScaleBenchTest {

  @Test
  void leadersAreCountedPerBrokerWithLeaderlessShardsUnderMinusOne() throws Exception {
    String stream = """
        {"name":"big","shard_assignments":[
          {"shard":0,"leader":2,"replicas":[2,1,0]},
          {"shard":1,"leader":0,"replicas":[0,1,2]},
          {"shard":2,"leader":2,"replicas":[2,0,1]},
          {"shard":3,"leader":-1,"replicas":[1,2,0]}]}
        """;
    assertEquals(Map.of(-1, 1, 0, 1, 2, 2), ScaleBench.leadersPerBroker(new ObjectMapper().readTree(stream)));
  }
}
