package org.rocketmqts.interop.golden;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Calendar;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TimeZone;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.rocketmq.common.UtilAll;
import org.apache.rocketmq.common.message.MessageClientIDSetter;
import org.apache.rocketmq.common.message.MessageDecoder;
import org.apache.rocketmq.common.message.MessageId;
import org.rocketmqts.interop.Hex;

/**
 * offsetMsgId (MessageDecoder.createMessageId / decodeMessageId) and UNIQ_KEY
 * (MessageClientIDSetter) fixtures, made deterministic.
 */
final class IdFixtures {
    private static final long DAY = 86_400_000L;

    Map<String, Object> run() throws Exception {
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("offsetMsgIds", offsetIds());
        s.put("uniqKeys", uniqKeys());
        s.put("notes", Arrays.asList(
            "offsetMsgId = UtilAll.bytes2string(storeIp | port int32 | commitLogOffset int64): upper-case hex.",
            "UNIQ_KEY layout: ip(4|16) | pid int16 | classLoader hash int32 | ms since start of month int32 | counter int16.",
            "composed ids are built with the public helpers UtilAll.bytes2string/writeInt/writeShort in "
                + "createUniqID's layout; generated ids come from the real MessageClientIDSetter.createUniqID() "
                + "after pinning its private static state (FIX_STRING and LEN via sun.misc.Unsafe, startTime, "
                + "nextStartTime and COUNTER via reflection) and retrying until the millisecond matched, so they "
                + "are reproducible and equal to the composed layout.",
            "getNearlyTimeFromID depends on the current date: it returns startOfMonth + span, using the previous "
                + "month when that lies in the future. Only the offset inside the month is reproducible, so "
                + "nearlyTime.msSinceMonthStart is recorded (UTC calendar, spans below 28 days)."));
        return s;
    }

    private List<Object> offsetIds() throws Exception {
        List<Object> list = new ArrayList<>();
        Object[][] hosts = {{"127.0.0.1", 10911}, {"192.0.2.1", 65535}, {"2001:db8::10", 10911}, {"::1", 1}};
        long[] offsets = {0L, 1L, 4096L, 4294967296L, 9007199254740993L, Long.MAX_VALUE, -1L};
        for (Object[] h : hosts) {
            for (long off : offsets) {
                InetSocketAddress a = MessageFixtures.addr((String) h[0], (Integer) h[1]);
                String id = MessageDecoder.createMessageId(a, off);
                MessageId back = MessageDecoder.decodeMessageId(id);
                Map<String, Object> e = new LinkedHashMap<>();
                e.put("ip", h[0]);
                e.put("port", h[1]);
                e.put("commitLogOffset", Long.toString(off));
                e.put("msgId", id);
                Map<String, Object> d = new LinkedHashMap<>();
                d.put("address", MessageFixtures.host(back.getAddress()));
                d.put("offset", Long.toString(back.getOffset()));
                e.put("decodeMessageId", d);
                list.add(e);
            }
        }
        return list;
    }

    private static String composeUniq(byte[] ip, int pid, int loaderHash, int diff, int counter) {
        ByteBuffer fixed = ByteBuffer.allocate(ip.length + 2 + 4);
        fixed.put(ip);
        fixed.putShort((short) pid);
        fixed.putInt(loaderHash);
        char[] prefix = UtilAll.bytes2string(fixed.array()).toCharArray();
        char[] sb = new char[(ip.length + 2 + 4 + 4 + 2) * 2];
        System.arraycopy(prefix, 0, sb, 0, prefix.length);
        UtilAll.writeInt(sb, prefix.length, diff);
        UtilAll.writeShort(sb, prefix.length + 8, counter);
        return new String(sb);
    }

    private List<Object> uniqKeys() throws Exception {
        List<Object> list = new ArrayList<>();
        Object[][] cases = {
            {new byte[] {127, 0, 0, 1}, 4242, 0x1b6d3586, 0, 0},
            {new byte[] {(byte) 192, 0, 2, 5}, 0x1F4A9, 0x7ffffffe, 1, 1},
            {new byte[] {10, 0, 0, 5}, 65535, -1, (int) (14 * DAY + 12_345_678L), 65535},
            {new byte[] {10, 0, 0, 5}, 1, 305419896, (int) (28 * DAY - 1), 70000},
            {ip6("2001:db8::5"), 4242, 0x1b6d3586, (int) (3 * DAY + 1), 42},
        };
        for (Object[] c : cases) {
            byte[] ip = (byte[]) c[0];
            String id = composeUniq(ip, (Integer) c[1], (Integer) c[2], (Integer) c[3], (Integer) c[4]);
            Map<String, Object> e = describeUniq(id, "composed");
            e.put("inputs", inputs(ip, (Integer) c[1], (Integer) c[2], (Integer) c[3], (Integer) c[4]));
            list.add(e);
        }
        list.add(generated(new byte[] {127, 0, 0, 1}, 4242, 0x1b6d3586, (int) (9 * DAY + 3_600_000L + 1234), 7));
        list.add(generated(new byte[] {(byte) 192, 0, 2, 77}, 31337, 0x12345678, 0, 65535));
        list.add(generated(ip6("2001:db8::77"), 4242, -559038737, (int) (27 * DAY), 65536 + 9));
        return list;
    }

    private static byte[] ip6(String s) throws Exception {
        return java.net.InetAddress.getByName(s).getAddress();
    }

    private static Map<String, Object> inputs(byte[] ip, int pid, int loaderHash, int diff, int counter) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("ipHex", Hex.of(ip));
        m.put("pid", pid);
        m.put("pidInt16", pid & 0xffff);
        m.put("classLoaderHash", loaderHash);
        m.put("msSinceMonthStart", diff);
        m.put("counter", counter);
        m.put("counterInt16", counter & 0xffff);
        return m;
    }

    private static Map<String, Object> describeUniq(String id, String how) {
        Map<String, Object> e = new LinkedHashMap<>();
        e.put("how", how);
        e.put("id", id);
        e.put("length", id.length());
        e.put("getIPStrFromID", MessageClientIDSetter.getIPStrFromID(id));
        e.put("getIPFromIDHex", Hex.of(MessageClientIDSetter.getIPFromID(id)));
        e.put("getPidFromID", MessageClientIDSetter.getPidFromID(id));
        Date nearly = MessageClientIDSetter.getNearlyTimeFromID(id);
        Calendar cal = Calendar.getInstance(TimeZone.getTimeZone("UTC"));
        cal.setTime(nearly);
        cal.set(Calendar.DAY_OF_MONTH, 1);
        cal.set(Calendar.HOUR_OF_DAY, 0);
        cal.set(Calendar.MINUTE, 0);
        cal.set(Calendar.SECOND, 0);
        cal.set(Calendar.MILLISECOND, 0);
        Map<String, Object> n = new LinkedHashMap<>();
        n.put("msSinceMonthStart", Long.toString(nearly.getTime() - cal.getTimeInMillis()));
        e.put("nearlyTime", n);
        return e;
    }

    /**
     * Runs the real createUniqID with its static state pinned; see the notes for why this is stable.
     * FIX_STRING and LEN are static finals sized by this machine's address family, so they are
     * replaced through sun.misc.Unsafe (reflection cannot write static finals on Java 17); the
     * non-final startTime/nextStartTime and the COUNTER contents are set by plain reflection.
     */
    private static Map<String, Object> generated(byte[] ip, int pid, int loaderHash, int diff, int counter)
        throws Exception {
        Class<?> cls = MessageClientIDSetter.class;
        Field fix = cls.getDeclaredField("FIX_STRING");
        Field len = cls.getDeclaredField("LEN");
        Field start = cls.getDeclaredField("startTime");
        Field next = cls.getDeclaredField("nextStartTime");
        Field ctr = cls.getDeclaredField("COUNTER");
        for (Field f : new Field[] {fix, len, start, next, ctr}) {
            f.setAccessible(true);
        }
        String expected = composeUniq(ip, pid, loaderHash, diff, counter);
        Class<?> unsafeClass = Class.forName("sun.misc.Unsafe");
        Field theUnsafe = unsafeClass.getDeclaredField("theUnsafe");
        theUnsafe.setAccessible(true);
        Object unsafe = theUnsafe.get(null);
        Method staticFieldBase = unsafeClass.getMethod("staticFieldBase", Field.class);
        Method staticFieldOffset = unsafeClass.getMethod("staticFieldOffset", Field.class);
        Method putObject = unsafeClass.getMethod("putObject", Object.class, long.class, Object.class);
        Method putInt = unsafeClass.getMethod("putInt", Object.class, long.class, int.class);
        Object savedFix = fix.get(null);
        int savedLen = len.getInt(null);
        long savedStart = start.getLong(null);
        long savedNext = next.getLong(null);
        String id = null;
        try {
            putObject.invoke(unsafe, staticFieldBase.invoke(unsafe, fix), staticFieldOffset.invoke(unsafe, fix),
                expected.substring(0, (ip.length + 6) * 2).toCharArray());
            putInt.invoke(unsafe, staticFieldBase.invoke(unsafe, len), staticFieldOffset.invoke(unsafe, len),
                ip.length + 12);
            next.setLong(null, Long.MAX_VALUE);
            for (int attempt = 0; attempt < 100 && !expected.equals(id); attempt++) {
                ((AtomicInteger) ctr.get(null)).set(counter);
                start.setLong(null, System.currentTimeMillis() - diff);
                id = MessageClientIDSetter.createUniqID();
            }
        } finally {
            putObject.invoke(unsafe, staticFieldBase.invoke(unsafe, fix), staticFieldOffset.invoke(unsafe, fix), savedFix);
            putInt.invoke(unsafe, staticFieldBase.invoke(unsafe, len), staticFieldOffset.invoke(unsafe, len), savedLen);
            start.setLong(null, savedStart);
            next.setLong(null, savedNext);
        }
        if (!expected.equals(id)) {
            throw new IllegalStateException("could not pin createUniqID: " + id + " vs " + expected);
        }
        Map<String, Object> e = describeUniq(id, "generated");
        e.put("inputs", inputs(ip, pid, loaderHash, diff, counter));
        e.put("equalsComposed", true);
        return e;
    }
}
