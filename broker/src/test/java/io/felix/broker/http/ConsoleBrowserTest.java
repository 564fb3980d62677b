package io.felix.broker.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.felix.broker.BrokerCluster;
import io.felix.broker.node.BrokerNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
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
@Timeout(value = 4, unit = java.util.concurrent.TimeUnit.MINUTES)
class ConsoleBrowserTest {

  private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
  private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
  private static final Path SCREENSHOTS = Path.of("target", "console-screenshots");
  private static final Duration WAIT = Duration.ofSeconds(60);

  @Test
  void theConsoleShowsEachStreamsLeadersPerBrokerAndDrivesPlacement() throws Exception {
    assertTrue(Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER), "the browser test needs Debian's "
        + "chromium and chromium-driver (apt-get install chromium chromium-driver; .ci/run installs them)");
    Files.createDirectories(SCREENSHOTS);
    try (BrokerCluster cluster = BrokerCluster.start(3, Map.of())) {
      BrokerNode via = cluster.broker(0);
      cluster.awaitBrokersLive(via, 3);
      WebDriver browser = chromium();
      try {
        browser.get("http://127.0.0.1:" + via.adminPort() + "/");
        awaitText(browser, "#connection", "live");

        // Create the note's 12-shard stream from the page: placed 4/4/4, inside the band.
        WebElement create = browser.findElement(By.id("create-stream"));
        create.findElement(By.name("name")).sendKeys("orders");
        create.findElement(By.cssSelector("button[type=submit]")).click();
        confirm(browser);
        awaitLeaders(browser, "orders", Map.of(0, 4, 1, 4, 2, 4));
        awaitOutsideBand(browser, "orders", false);
        screenshot(browser, "1-orders-4-4-4");

        // Pause placement from the page, then move one of broker 0's leaders to broker 1 by hand: 3/5/4 stays.
        browser.findElement(By.id("toggle-pause")).click();
        confirm(browser);
        awaitText(browser, "#placement dd[data-key=paused]", "yes");
        int shard = shardLedBy(cluster, via, "orders", 0);
        WebElement move = browser.findElement(By.id("start-move"));
        new Select(move.findElement(By.name("stream"))).selectByValue("orders");
        WebElement shardField = move.findElement(By.name("shard"));
        shardField.clear();
        shardField.sendKeys(Integer.toString(shard));
        new Select(move.findElement(By.name("to"))).selectByValue("1");
        move.findElement(By.cssSelector("button[type=submit]")).click();
        confirm(browser);
        awaitLeaders(browser, "orders", Map.of(0, 3, 1, 5, 2, 4));
        awaitOutsideBand(browser, "orders", true); // 5 leaders is above the band 4-4
        screenshot(browser, "2-manual-move-skews-orders");

        // Resume: placement brings the row back into its band.
        browser.findElement(By.id("toggle-pause")).click();
        confirm(browser);
        awaitText(browser, "#placement dd[data-key=paused]", "no");
        awaitLeaders(browser, "orders", Map.of(0, 4, 1, 4, 2, 4));
        screenshot(browser, "3-rebalanced");

        // Drain broker 2 from its row: its bars empty and it shows as draining; then undrain it.
        click(browser, "#brokers tr[data-broker='2'] button.drain");
        confirm(browser);
        awaitText(browser, "#brokers tr[data-broker='2'] td.state", "draining");
        awaitLeaders(browser, "orders", Map.of(0, 6, 1, 6, 2, 0));
        screenshot(browser, "4-broker-2-drained");
        assertEquals("draining", brokerState(cluster, via, 2));
        click(browser, "#brokers tr[data-broker='2'] button.undrain");
        confirm(browser);
        awaitText(browser, "#brokers tr[data-broker='2'] td.state", "live");
        assertEquals("live", brokerState(cluster, via, 2));

        // A phone's width still shows every broker's bar for the stream.
        browser.manage().window().setSize(new Dimension(390, 844));
        assertEquals(3, row(browser, "orders").findElements(By.cssSelector(".cell")).size());
        screenshot(browser, "5-phone-width");
      } finally {
        browser.quit();
      }
    }
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
    wait(browser).withMessage(() -> css + " never showed '" + expected + "'").until(b -> {
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
    Map<Integer, Integer> counts = new TreeMap<>();
    List<WebElement> rows = browser.findElements(By.cssSelector(".stream-row[data-stream='" + stream + "']"));
    if (!rows.isEmpty()) {
      for (WebElement cell : rows.get(0).findElements(By.cssSelector(".cell"))) {
        counts.put(Integer.parseInt(cell.getAttribute("data-broker")),
            Integer.parseInt(cell.getAttribute("data-leaders")));
      }
    }
    return counts;
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
