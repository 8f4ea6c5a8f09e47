// JvmHeap.java — a JVM with a Java heap in use, for tests/live/test_jvm.py.
// Run with the source launcher (java JvmHeap.java: no javac needed, the
// headless JRE has the compiler module). Keeps 200 arrays of 64 KiB (some
// 12.5 MiB in the old generation after a collection), then 64 of 4 KiB
// more after it (some 256 KiB in the young generation: under G1, in the
// region being allocated in, which its hsperfdata counts only once the
// region is retired), prints "ready PID", then waits on stdin and exits
// when it closes.
public class JvmHeap {
    public static void main(String[] args) throws Exception {
        java.util.List<byte[]> keep = new java.util.ArrayList<>();
        for (int i = 0; i < 200; i++)
            keep.add(new byte[64 * 1024]);
        System.gc();
        for (int i = 0; i < 64; i++)
            keep.add(new byte[4 * 1024]);
        System.out.println("ready " + ProcessHandle.current().pid());
        System.out.flush();
        while (System.in.read() >= 0)
            ;
        System.out.println(keep.size());
    }
}
