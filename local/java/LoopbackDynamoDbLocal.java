import java.lang.reflect.Field;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import software.amazon.dynamodb.services.local.main.ServerRunner;
import software.amazon.dynamodb.services.local.server.DynamoDBProxyServer;

/**
 * DynamoDB Local bound to one address (the loopback one): the jar's own main binds Jetty to every
 * interface and has no option for the address, and DynamoDB Local checks no credentials, so anyone
 * on the network could read and write the table. This builds the server as the jar's main does
 * (the same command-line options), sets the address of its Jetty connector before it starts, and
 * starts it. It also ends when its standard input does: local/dynamodb.ts keeps that pipe open for
 * as long as it lives, so a DynamoDB Local in a process group of its own never outlives the process
 * that started it, however that process ended (a SIGKILL included).
 *
 * Build (local/dynamodb.ts runs the .class beside this file):
 *   npm run build:dynamodb-launcher
 */
public final class LoopbackDynamoDbLocal {
  public static void main(String[] args) throws Exception {
    String host = System.getProperty("dynamodb.local.host", "127.0.0.1");
    DynamoDBProxyServer proxy = ServerRunner.createServerFromCommandLineArgs(args);
    Field field = DynamoDBProxyServer.class.getDeclaredField("server");
    field.setAccessible(true);
    Server jetty = (Server) field.get(proxy);
    Connector[] connectors = jetty.getConnectors();
    if (connectors.length == 0) throw new IllegalStateException("DynamoDB Local has no connector to bind");
    for (Connector connector : connectors) ((ServerConnector) connector).setHost(host);
    proxy.start();
    System.out.println("DynamoDB Local listening on " + host + " only");
    Thread watchdog = new Thread(LoopbackDynamoDbLocal::exitWhenParentGone, "parent-watchdog");
    watchdog.setDaemon(true);
    watchdog.start();
  }

  private static void exitWhenParentGone() {
    try {
      while (System.in.read() != -1) {
        // Nothing is ever written; reading only waits for the end of the stream.
      }
    } catch (java.io.IOException ignored) {
      // A broken pipe is the parent gone too.
    }
    System.exit(0);
  }
}
