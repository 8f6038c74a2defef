# point_reads.pxi -- GET, HGET and SISMEMBER, compiled: the point reads of
# the string, hash and set types, which hot loops call most.
#
# Included by _core.pyx after core/dispatch.pxi (it uses that file's
# ``_lookup_type``).  These handlers are the one definition of their
# commands: fastrank.commands.strings, .hashes and .sets register them in the
# command table like their Python handlers (``handler(db, args)`` → raw
# reply, CommandError(WRONGTYPE) for a key of another type; a key with a
# deadline is looked up by ``Engine.lookup_expiring``).  O(1) each.


def get_command(object db, list args):
    """GET key: the string, or None."""
    return _lookup_type(db, args[0], bytes)


def hget_command(object db, list args):
    """HGET key field: the field's value, or None."""
    h = _lookup_type(db, args[0], dict)
    if h is None:
        return None
    return (<dict>h).get(args[1])


def sismember_command(object db, list args):
    """SISMEMBER key member: 1 when member is in the set, else 0."""
    s = _lookup_type(db, args[0], set)
    return 1 if s is not None and args[1] in <set>s else 0
