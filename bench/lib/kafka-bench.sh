# Shared by bench/kafka-perf (Kafka's load tools against Felix) and bench/kafka-baseline (the same tools against
# Apache Kafka itself), which source it: the options both take, Kafka's jars resolved by Maven from Maven Central
# into ~/.m2 (nothing of Kafka is stored in this repository), the kafka-tools runner, the brokers' CPU and the run
# of ProducerPerformance and ConsumerPerformance with the lines both print. Sourcing it only sets the defaults.

KAFKA_VERSION=4.4.0
RECORDS=300000
RECORD_SIZE=1024
ACKS=all
PARTITIONS=12
KEEP=no
WARMUP=200000
PRODUCER_PROPS=()

# kafka_bench_options ARG...: parses the options both scripts take into the variables above; -h/--help prints the
# script's header comment (the comment lines after the first line). Any other word goes to OTHER_OPTIONS, for the
# script to take or refuse.
kafka_bench_options() {
  OTHER_OPTIONS=()
  while [[ $# -gt 0 ]]; do
    case "$1" in
      --records) RECORDS="$2"; shift 2 ;;
      --record-size) RECORD_SIZE="$2"; shift 2 ;;
      --acks) ACKS="$2"; shift 2 ;;
      --partitions) PARTITIONS="$2"; shift 2 ;;
      --producer-prop) PRODUCER_PROPS+=("$2"); shift 2 ;;
      --warmup) WARMUP="$2"; shift 2 ;;
      --keep-cluster) KEEP=yes; shift ;;
      -h|--help) awk 'NR == 1 { next } /^#/ { print; next } { exit }' "$0"; exit 0 ;;
      *) OTHER_OPTIONS+=("$1"); shift ;;
    esac
  done
}

# kafka_bench_unknown_option OPTION: the message and exit status for an option the script does not take.
kafka_bench_unknown_option() {
  echo "${0##*/}: unknown option $1 (see --help)" >&2
  exit 2
}

# kafka_bench_classpath DIR GROUP:ARTIFACT:VERSION...: writes a throwaway project in DIR whose only dependencies are
# the artifacts given; Maven resolves them (fetching into ~/.m2 on first use) and the classpath is printed.
kafka_bench_classpath() {
  local dir="$1" coordinate group artifact version dependencies=""
  shift
  for coordinate in "$@"; do
    IFS=: read -r group artifact version <<<"$coordinate"
    dependencies+="
    <dependency>
      <groupId>$group</groupId>
      <artifactId>$artifact</artifactId>
      <version>$version</version>
    </dependency>"
  done
  mkdir -p "$dir"
  cat >"$dir/pom.xml" <<POM
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>io.felix.bench</groupId>
  <artifactId>kafka-classpath</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>$dependencies
  </dependencies>
</project>
POM
  # Maven 3.8 writes colour reset codes even with -B -q: stripped, as bin/felix does (pipefail keeps Maven's status).
  mvn -B -q -f "$dir/pom.xml" dependency:build-classpath -Dmdep.outputFile="$dir/classpath.txt" 2>&1 \
    | sed 's/\x1b\[[0-9;]*m//g' >&2
  cat "$dir/classpath.txt"
}

# kafka_bench_tools DIR: resolves kafka-tools (the load tools, TopicCommand) into KAFKA_TOOLS_CP, for kafka.
kafka_bench_tools() {
  KAFKA_TOOLS_CP="$(kafka_bench_classpath "$1" "org.apache.kafka:kafka-tools:$KAFKA_VERSION" \
    org.slf4j:slf4j-simple:2.0.17)"
}

# kafka MAIN-CLASS ARG...: runs a main class of kafka-tools.
kafka() { java -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -cp "$KAFKA_TOOLS_CP" "$@"; }

# cpu_ticks PID...: user + system clock ticks of the processes.
cpu_ticks() {
  local total=0 pid stat
  for pid in "$@"; do
    read -r -a stat <"/proc/$pid/stat"
    total=$((total + stat[13] + stat[14]))
  done
  echo "$total"
}

# kafka_bench_topic BOOTSTRAP TOPIC: creates TOPIC with TopicCommand (PARTITIONS partitions, replication factor 3).
kafka_bench_topic() {
  kafka org.apache.kafka.tools.TopicCommand --bootstrap-server "$1" --create --if-not-exists \
    --topic "$2" --partitions "$PARTITIONS" --replication-factor 3 >&2
}

# kafka_bench_produce BOOTSTRAP TOPIC N: N records of RECORD_SIZE bytes with ProducerPerformance (acks ACKS,
# idempotent, unthrottled, PRODUCER_PROPS added); prints its summary line.
kafka_bench_produce() {
  kafka org.apache.kafka.tools.ProducerPerformance --topic "$2" --num-records "$3" \
    --record-size "$RECORD_SIZE" --throughput -1 \
    --producer-props bootstrap.servers="$1" acks="$ACKS" enable.idempotence=true ${PRODUCER_PROPS[@]+"${PRODUCER_PROPS[@]}"} \
    | tail -n 1
}

# kafka_bench_run BOOTSTRAP TOPIC PID...: creates TOPIC, warms the brokers up with WARMUP records on TOPIC-warmup
# (0: none), produces RECORDS records to TOPIC, prints the producer's summary line and the CPU the processes PID...
# spent during that produce, then consumes every record back with ConsumerPerformance and prints its summary (header
# and figures).
kafka_bench_run() {
  local bootstrap="$1" topic="$2" before after start end hz
  shift 2
  kafka_bench_topic "$bootstrap" "$topic"
  if [[ "$WARMUP" -gt 0 ]]; then
    # Brokers fresh from their start spend most of a short run compiling (measured 2026-12-07 on Felix: the JIT's
    # threads took 31% of the brokers' CPU during a 600,000-record produce, and were busy for its first 25 s): both
    # systems first take WARMUP records on a topic of their own, unmeasured, so the figures are a running broker's.
    kafka_bench_topic "$bootstrap" "$topic-warmup"
    echo "== warm-up: $WARMUP records on $topic-warmup, not measured"
    kafka_bench_produce "$bootstrap" "$topic-warmup" "$WARMUP"
  fi

  echo "== ProducerPerformance: $RECORDS records of $RECORD_SIZE B, acks $ACKS, $PARTITIONS partitions, RF 3 ${PRODUCER_PROPS[*]:-}"
  before="$(cpu_ticks "$@")"
  start="$(date +%s.%N)"
  kafka_bench_produce "$bootstrap" "$topic" "$RECORDS"
  end="$(date +%s.%N)"
  after="$(cpu_ticks "$@")"
  hz="$(getconf CLK_TCK)"
  awk -v t="$((after - before))" -v hz="$hz" -v s="$start" -v e="$end" -v n="$RECORDS" -v b="$RECORD_SIZE" 'BEGIN {
    cpu = t / hz; mib = n * b / 1048576;
    printf "brokers: %.1f CPU-s over %.1f s (%.2f cores), %.1f CPU-ms per MiB produced\n", cpu, e - s, cpu / (e - s), 1000 * cpu / mib }'

  echo "== ConsumerPerformance: every record back"
  kafka org.apache.kafka.tools.ConsumerPerformance --bootstrap-server "$bootstrap" --topic "$topic" \
    --messages "$RECORDS" --timeout 60000 | tail -n 2
}
