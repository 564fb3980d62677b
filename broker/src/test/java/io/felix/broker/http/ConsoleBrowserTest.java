package io.felix.broker.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.felix.broker.BrokerCluster;
import io.felix.broker.node.BrokerNode;
import io.felix.client.FelixClient;
import io.felix.client.GroupConsumer;
import io.felix.client.GroupConsumerOptions;
import io.felix.testing.MachineRequirements;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The web console in a real browser (Debian's headless chromium through its chromedriver) against a real
 * three-broker cluster: every step is done by clicking the page, and checked both on the page and in the admin API.
 * Screenshots of each step go to {@code broker/target/console-screenshots/}.
 */
@Tag("cluster")
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class ConsoleBrowserTest {

  private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
  private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
  private static final Path SCREENSHOTS = Path.of("target", "console-screenshots");
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final String TOKEN = "console-test-admin-token";
  private static final String GROUP = "billing";

  @Test
  void theConsoleShowsEachStreamsLeadersPerBrokerAndDrivesPlacement() throws Exception {
    MachineRequirements.require("ConsoleBrowserTest (a real browser)",
        Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER) ? null : "no " + CHROMIUM + " or "
            + CHROMEDRIVER + " (Debian's chromium and chromium-driver packages)");
    Files.createDirectories(SCREENSHOTS);
    // Admin authentication on, as in the compose deployment: the page must ask for the token and send it.
    try (BrokerCluster cluster = BrokerCluster.start(3, Map.of("felix.security.admin-authentication", "on",
        "felix.security.admin-tokens", List.of(TOKEN)))) {
      cluster.adminToken(TOKEN);
      BrokerNode via = cluster.broker(0);
      cluster.awaitBrokersLive(via, 3);
      // The design note's benchmark layout: four streams and a cache before the 12-shard stream.
      for (Map.Entry<String, Integer> stream : List.of(Map.entry("perf-acks-none", 12), Map.entry("perf-acks-all", 12),
          Map.entry("perf-leader", 12), Map.entry("orders", 7))) {
        assertEquals(201, cluster.post(via, "/v1/streams", "{\"name\":\"" + stream.getKey() + "\",\"shards\":"
            + stream.getValue() + "}").status());
      }
      assertEquals(201, cluster.post(via, "/v1/caches", "{\"name\":\"cache-sessions\",\"shards\":6}").status());
      WebDriver browser = chromium();
      try {
        browser.get(consoleOf(via));
        signIn(browser);

        // Create the 12-shard stream from the page: placed 4/4/4 beside the others, every row inside its band.
        WebElement create = browser.findElement(By.id("create-stream"));
        create.findElement(By.name("name")).sendKeys("perf-quorum");
        create.findElement(By.cssSelector("button[type=submit]")).click();
        confirm(browser);
        awaitLeaders(browser, "perf-quorum", Map.of(0, 4, 1, 4, 2, 4));
        awaitOutsideBand(browser, "perf-quorum", false);
        awaitLeaders(browser, "cache-sessions", Map.of(0, 2, 1, 2, 2, 2));
        assertEquals("cache", attribute(browser, ".stream-row[data-stream='cache-sessions']", "data-kind"));
        assertEquals("stream", attribute(browser, ".stream-row[data-stream='orders']", "data-kind"));
        String totalRow = ".stream-row[data-total]";
        Map<Integer, Integer> totals = wait(browser).until(b -> counts(b.findElement(By.cssSelector(totalRow))));
        assertEquals(61, totals.values().stream().mapToInt(Integer::intValue).sum(), "12*4 + 7 + 6 leaders");
        assertEquals("false", attribute(browser, totalRow, "data-outside"), "the totals within one: " + totals);
        screenshot(browser, "1-perf-quorum-4-4-4");

        // Pause placement from the page, then move one of broker 0's leaders to broker 1 by hand: 3/5/4 stays.
        browser.findElement(By.id("toggle-pause")).click();
        confirm(browser);
        awaitText(browser, "#placement dd[data-key=paused]", "yes");
        int shard = shardLedBy(cluster, via, "perf-quorum", 0);
        WebElement move = browser.findElement(By.id("start-move"));
        new Select(move.findElement(By.name("stream"))).selectByValue("perf-quorum");
        WebElement shardField = move.findElement(By.name("shard"));
        shardField.clear();
        shardField.sendKeys(Integer.toString(shard));
        new Select(move.findElement(By.name("to"))).selectByValue("1");
        move.findElement(By.cssSelector("button[type=submit]")).click();
        confirm(browser);
        awaitLeaders(browser, "perf-quorum", Map.of(0, 3, 1, 5, 2, 4));
        awaitOutsideBand(browser, "perf-quorum", true); // 5 leaders is above the band 4-4
        String moved = "#moves tr[data-move='perf-quorum/" + shard + "'][data-from='0'][data-to='1']";
        awaitText(browser, moved + "[data-state='completed'] td:nth-child(5)", "completed");
        screenshot(browser, "2-manual-move-skews-perf-quorum");

        // Resumed through the API, not the page: the page shows it within a couple of seconds of the change.
        assertEquals(200, cluster.post(via, "/v1/placement/resume", "").status());
        awaitText(browser, "#placement dd[data-key=paused]", "no", Duration.ofSeconds(3));
        // Placement brings the row back into its band.
        awaitLeaders(browser, "perf-quorum", Map.of(0, 4, 1, 4, 2, 4));
        awaitOutsideBand(browser, "perf-quorum", false);
        screenshot(browser, "3-rebalanced");

        // Drain broker 2 from its row: its bars empty and it shows as draining; then undrain it.
        click(browser, "#brokers tr[data-broker='2'] button.drain");
        confirm(browser);
        awaitText(browser, "#brokers tr[data-broker='2'] td.state", "draining");
        awaitLeaders(browser, "perf-quorum", Map.of(0, 6, 1, 6, 2, 0));
        screenshot(browser, "4-broker-2-drained");
        assertEquals("draining", brokerState(cluster, via, 2));
        click(browser, "#brokers tr[data-broker='2'] button.undrain");
        confirm(browser);
        awaitText(browser, "#brokers tr[data-broker='2'] td.state", "live");
        assertEquals("live", brokerState(cluster, via, 2));

        // A consumer group reads and commits 30 records; 10 more arrive: its row shows a lag of 10. The page is
        // opened on a broker that does not coordinate the group, which asks the coordinator with the page's token.
        int coordinator = commitThirtyThenProduceTen(cluster);
        browser.get(consoleOf(cluster.broker((coordinator + 1) % 3)));
        signIn(browser);
        awaitText(browser, "#groups tr[data-group='" + GROUP + "'] td.lag", "10");
        assertEquals("perf-quorum", browser.findElement(By.cssSelector("#groups tr[data-group='" + GROUP
            + "'] td:nth-child(2)")).getText());
        screenshot(browser, "5-group-lag");

        // Delete a stream from the page: its row goes, and the API no longer knows it.
        new Select(browser.findElement(By.cssSelector("#delete-stream select"))).selectByValue("orders");
        browser.findElement(By.cssSelector("#delete-stream button[type=submit]")).click();
        confirm(browser);
        wait(browser).withMessage(() -> "the orders row stayed").until(b ->
            b.findElements(By.cssSelector(".stream-row[data-stream='orders']")).isEmpty());
        assertEquals(404, cluster.get(via, "/v1/streams/orders").status());

        // A phone's width still shows every broker's bar for the stream, and nothing runs off the screen.
        browser.manage().window().setSize(new Dimension(390, 844));
        assertEquals(3, row(browser, "perf-quorum").findElements(By.cssSelector(".cell")).size());
        Number overflow = (Number) ((JavascriptExecutor) browser).executeScript(
            "return document.documentElement.scrollWidth - window.innerWidth");
        assertTrue(overflow.intValue() <= 0, "the page is " + overflow + " px wider than a phone's screen");
        screenshot(browser, "6-phone-width");
      } finally {
        browser.quit();
      }
    }
  }

  private static String consoleOf(BrokerNode broker) {
    return "http://127.0.0.1:" + broker.adminPort() + "/";
  }

  /** The page asks for the admin token: a wrong one is refused with the API's reason, the right one goes live. */
  private static void signIn(WebDriver browser) {
    wait(browser).until(b -> b.findElement(By.id("sign-in")).isDisplayed());
    WebElement form = browser.findElement(By.id("sign-in"));
    form.findElement(By.name("token")).sendKeys("not-the-token");
    form.findElement(By.cssSelector("button[type=submit]")).click();
    awaitText(browser, "#sign-in-reason", "the bearer token is not valid");
    form.findElement(By.name("token")).sendKeys(TOKEN);
    form.findElement(By.cssSelector("button[type=submit]")).click();
    awaitText(browser, "#connection", "live");
  }

  /** A member of {@value #GROUP} reads the 30 records and commits; then 10 more. Returns the coordinator's id. */
  private static int commitThirtyThenProduceTen(BrokerCluster cluster) throws Exception {
    try (FelixClient client = cluster.client()) {
      produce(client, 30);
      GroupConsumer member = new GroupConsumer(client, GroupConsumerOptions.DEFAULTS
          .withSession(Duration.ofSeconds(3), Duration.ofMillis(500)).withMaxWait(Duration.ofMillis(200)));
      member.subscribe("perf-quorum", GROUP);
      int read = 0;
      long deadline = System.nanoTime() + WAIT.toNanos();
      while (read < 30 && System.nanoTime() < deadline) {
        read += member.poll(Duration.ofMillis(500)).size();
      }
      assertEquals(30, read, "the member read every record");
      member.commitSync();
      member.close();
      produce(client, 10);
    }
    return cluster.get(cluster.broker(0), "/v1/groups/" + GROUP).json().get("coordinator").asInt();
  }

  private static void produce(FelixClient client, int records) throws Exception {
    List<CompletableFuture<?>> acked = new ArrayList<>();
    for (int i = 0; i < records; i++) {
      acked.add(client.produce("perf-quorum", ("k" + i).getBytes(StandardCharsets.UTF_8),
          ("v" + i).getBytes(StandardCharsets.UTF_8)));
    }
    CompletableFuture.allOf(acked.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
  }

  private static WebDriver chromium() {
    ChromeOptions options = new ChromeOptions();
    options.setBinary(CHROMIUM.toFile());
    options.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,1700");
    ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile())
        .usingAnyFreePort().build();
    return new ChromeDriver(service, options);
  }

  /** Clicks Confirm in the page's confirmation dialog. */
  private static void confirm(WebDriver browser) {
    wait(browser).until(b -> b.findElement(By.id("confirm-ok")).isDisplayed());
    browser.findElement(By.id("confirm-ok")).click();
  }

  /** Waits on the page, which redraws a part whenever the admin API's answer for it changed. */
  private static WebDriverWait wait(WebDriver browser) {
    WebDriverWait wait = new WebDriverWait(browser, WAIT);
    wait.ignoring(StaleElementReferenceException.class);
    return wait;
  }

  /** Clicks what the selector finds, again if the page redrew it in between. */
  private static void click(WebDriver browser, String css) {
    wait(browser).until(b -> {
      b.findElement(By.cssSelector(css)).click();
      return true;
    });
  }

  private static void awaitOutsideBand(WebDriver browser, String stream, boolean outside) {
    wait(browser).withMessage(() -> stream + " never showed outside-the-band = " + outside).until(b ->
        String.valueOf(outside).equals(row(b, stream).getAttribute("data-outside")));
  }

  private static void awaitText(WebDriver browser, String css, String expected) {
    awaitText(browser, css, expected, WAIT);
  }

  private static void awaitText(WebDriver browser, String css, String expected, Duration within) {
    wait(browser).withTimeout(within).withMessage(() -> css + " never showed '" + expected + "'").until(b -> {
      List<WebElement> found = b.findElements(By.cssSelector(css));
      return !found.isEmpty() && found.get(0).getText().startsWith(expected);
    });
  }

  /** Waits until the stream's row shows exactly these leader counts per broker. */
  private static void awaitLeaders(WebDriver browser, String stream, Map<Integer, Integer> expected) {
    Map<Integer, Integer> want = new TreeMap<>(expected);
    wait(browser).withMessage(() -> stream + " never showed leaders " + want + "; it shows "
        + shown(browser, stream)).until(b -> want.equals(shown(b, stream)));
  }

  private static Map<Integer, Integer> shown(WebDriver browser, String stream) {
    List<WebElement> rows = browser.findElements(By.cssSelector(".stream-row[data-stream='" + stream + "']"));
    return rows.isEmpty() ? Map.of() : counts(rows.get(0));
  }

  /** A row's leader count per broker, as its cells say. */
  private static Map<Integer, Integer> counts(WebElement row) {
    Map<Integer, Integer> counts = new TreeMap<>();
    for (WebElement cell : row.findElements(By.cssSelector(".cell"))) {
      counts.put(Integer.parseInt(cell.getAttribute("data-broker")),
          Integer.parseInt(cell.getAttribute("data-leaders")));
    }
    return counts;
  }

  /** An attribute of what the selector finds, read again if the page redrew it in between. */
  private static String attribute(WebDriver browser, String css, String name) {
    return wait(browser).until(b -> b.findElement(By.cssSelector(css)).getAttribute(name));
  }

  private static WebElement row(WebDriver browser, String stream) {
    return browser.findElement(By.cssSelector(".stream-row[data-stream='" + stream + "']"));
  }

  private static int shardLedBy(BrokerCluster cluster, BrokerNode via, String stream, int broker) {
    for (JsonNode shard : cluster.get(via, "/v1/streams/" + stream).json().get("shard_assignments")) {
      if (shard.get("leader").asInt() == broker) {
        return shard.get("shard").asInt();
      }
    }
    throw new AssertionError("broker " + broker + " leads no shard of " + stream);
  }

  private static String brokerState(BrokerCluster cluster, BrokerNode via, int broker) {
    for (JsonNode b : cluster.get(via, "/v1/brokers").json()) {
      if (b.get("id").asInt() == broker) {
        return b.get("state").asText();
      }
    }
    throw new AssertionError("broker " + broker + " is not listed");
  }

  private static void screenshot(WebDriver browser, String name) throws Exception {
    ((JavascriptExecutor) browser).executeScript("window.scrollTo(0, 0)");
    byte[] png = ((TakesScreenshot) browser).getScreenshotAs(OutputType.BYTES);
    Files.write(SCREENSHOTS.resolve(name + ".png"), png);
  }
}
