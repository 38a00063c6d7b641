package engram.local;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.connectors.HttpConnector;
import org.neo4j.configuration.connectors.HttpsConnector;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.logging.log4j.Log4jLogProvider;

/**
 * Embedded Neo4j serving Bolt on loopback, for the local stack.
 *
 * <p>Usage: {@code EngramNeo4j <home-dir> <bolt-port>} with the password of user neo4j in
 * ENGRAM_NEO4J_PASSWORD (kept out of argv, which any local user can read). Runs until SIGTERM.
 */
public final class EngramNeo4j {
    private static final String USER = "neo4j";

    private EngramNeo4j() {}

    public static void main(String[] args) throws InterruptedException, IOException {
        String password = System.getenv("ENGRAM_NEO4J_PASSWORD");
        if (args.length != 2 || password == null || password.isEmpty()) {
            System.err.println("usage: ENGRAM_NEO4J_PASSWORD=... EngramNeo4j <home-dir> <bolt-port>");
            System.exit(64);
        }
        Path home = Path.of(args[0]).toAbsolutePath();
        int port = Integer.parseInt(args[1]);

        // Neo4j's first boot creates neo4j/neo4j with "change required", and no setting names a
        // first password. Set ours in a boot without Bolt, so that no client ever meets the
        // default password (or locks the account by polling with ours before it is set).
        Path marker = home.resolve("data").resolve("engram-initial-password-set");
        if (!Files.exists(marker)) {
            DatabaseManagementService setup = boot(home, port, false);
            try {
                setInitialPassword(setup.database(GraphDatabaseSettings.SYSTEM_DATABASE_NAME), password);
            } finally {
                setup.shutdown();
            }
            Files.writeString(marker, "");
        }

        DatabaseManagementService dbms = boot(home, port, true);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            dbms.shutdown();
            stopped.countDown();
        }, "engram-neo4j-shutdown"));
        System.out.println("ENGRAM-NEO4J READY bolt://127.0.0.1:" + port);
        stopped.await();
    }

    private static DatabaseManagementService boot(Path home, int port, boolean bolt) {
        return new DatabaseManagementServiceBuilder(home)
                .setUserLogProvider(new Log4jLogProvider(System.out))
                .setConfig(BoltConnector.enabled, bolt)
                .setConfig(BoltConnector.listen_address, new SocketAddress("127.0.0.1", port))
                .setConfig(BoltConnector.advertised_address, new SocketAddress("127.0.0.1", port))
                .setConfig(HttpConnector.enabled, false)
                .setConfig(HttpsConnector.enabled, false)
                .setConfig(GraphDatabaseSettings.auth_enabled, true)
                // The heap is set by -Xmx; keep the off-heap page cache small for a laptop stack.
                .setConfig(GraphDatabaseSettings.pagecache_memory, 128L * 1024 * 1024)
                .setConfig(GraphDatabaseSettings.keep_logical_logs, "1 files")
                // Loopback-only dev server: no usage reports to the vendor.
                .setConfig(GraphDatabaseSettings.udc_enabled, false)
                .build();
    }

    /** Only while the default user still awaits its first password: never overwrite a chosen one. */
    private static void setInitialPassword(GraphDatabaseService system, String password) {
        boolean pending = system.executeTransactionally(
                "SHOW USERS YIELD user, passwordChangeRequired WHERE user = $u RETURN passwordChangeRequired",
                Map.of("u", USER),
                rows -> rows.hasNext() && Boolean.TRUE.equals(rows.next().get("passwordChangeRequired")));
        if (pending) {
            system.executeTransactionally(
                    "ALTER USER " + USER + " SET PASSWORD $p CHANGE NOT REQUIRED", Map.of("p", password));
            System.out.println("ENGRAM-NEO4J initial password set for user " + USER);
        }
    }
}
